// libFuzzer target: tokenizer input. A small SentencePiece model is trained once from the demo
// corpus (MIXERLAB_FUZZ_CORPUS, default projects/demo/data/stories-a.txt), then arbitrary bytes,
// invalid UTF-8 included, are encoded (with each newline mode) and decoded again.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include "core/data/corpus_reader.h"
#include "core/data/token_cache.h"
#include "core/data/tokenizer.h"

namespace {
std::unique_ptr<mixerlab::Tokenizer> g_tokenizer;
}

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const char* corpus = std::getenv("MIXERLAB_FUZZ_CORPUS");
  const std::filesystem::path text = corpus != nullptr ? corpus : "projects/demo/data/stories-a.txt";
  const auto model = std::filesystem::temp_directory_path() / "mixerlab-fuzz-tokenizer.model";
  mixerlab::TokenizerSettings settings;
  settings.vocab_size = 512;
  mixerlab::trainTokenizer(mixerlab::readCorpus(text), settings, model);
  g_tokenizer = std::make_unique<mixerlab::Tokenizer>(mixerlab::Tokenizer::load(model));
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const auto mode : {mixerlab::NewlineMode::Token, mixerlab::NewlineMode::Unk}) {
    const std::vector<int> ids = mixerlab::encodeDocument(*g_tokenizer, text, mode);
    (void)g_tokenizer->decode(ids);
  }
  return 0;
}
