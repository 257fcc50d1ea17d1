# Non-torch dependencies of the core, all from Debian packages (see installer/install-deps.sh).
find_package(PkgConfig REQUIRED)
pkg_check_modules(SENTENCEPIECE REQUIRED IMPORTED_TARGET sentencepiece)
find_library(SENTENCEPIECE_TRAIN_LIB sentencepiece_train REQUIRED)
# Compressed corpora (core/data/compressed_reader.cpp): gzip through zlib, zstd through libzstd.
find_package(ZLIB REQUIRED)
pkg_check_modules(ZSTD REQUIRED IMPORTED_TARGET libzstd)
# PCRE2 (8-bit): the regular expressions of byte-level tokenizer.json pre-tokenizers (core/data/hf_split_regex.h).
pkg_check_modules(PCRE2 REQUIRED IMPORTED_TARGET libpcre2-8)
find_package(spdlog REQUIRED)
find_package(nlohmann_json 3.9 REQUIRED)
find_path(CLI11_INCLUDE_DIR CLI/CLI.hpp REQUIRED)
