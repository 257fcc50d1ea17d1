// The files a corpus is read from: the inputs of a corpus setting (files, folders, glob patterns) expanded
// into an ordered list, each with its compression (by content), resolved format, size and modification
// time, and a fingerprint that detects a change of a gigabyte file without reading it. DocumentStream
// (document_stream.h) reads the documents of each.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/data/corpus_reader.h"

namespace mixerlab {

// Decided by the file's first bytes (1f 8b: gzip, 28 b5 2f fd: zstd), never by its name.
enum class Compression { None, Gzip, Zstd };

struct SourceFile {
  std::filesystem::path path;
  uint64_t size_bytes = 0;  // on disk (compressed size for compressed files)
  int64_t mtime_ns = 0;
  Compression compression = Compression::None;
  CorpusFormat format = CorpusFormat::BlankLine;  // resolved, never Auto
};

// Expands the corpus inputs, in the order given: a file; a directory (its regular files recursively, sorted by
// path, hidden files/dirs and names ending in .tmp or containing ".tmp-" skipped; symbolic links to folders
// are not entered); or a glob pattern (glob(3), sorted by path, hidden and temporary names skipped as in a
// folder; a folder it matches is expanded). A missing path, a glob matching nothing or a folder without
// files throws MixerLabError naming the input and the fix. Symlinks to files are followed for reading.
// Duplicate paths (same file reached twice, by device and inode) are listed once, where first reached.
// Format: `format` unless Auto; Auto resolves per file (detectSourceFormat). Relative inputs resolve
// against base_dir when it is set.
std::vector<SourceFile> expandCorpusSources(const std::vector<std::string>& inputs, CorpusFormat format,
                                            const std::filesystem::path& base_dir = {});

// One existing file as a SourceFile (size, mtime, compression by content, `format` or, for Auto,
// detectSourceFormat). Throws MixerLabError naming the path when it cannot be read.
SourceFile describeSourceFile(const std::filesystem::path& path, CorpusFormat format);

// The compression of the file by its first bytes.
Compression detectCompression(const std::filesystem::path& path);

// The format Auto stands for: the extension (after stripping .gz / .zst / .zstd) .jsonl/.json -> JsonLines,
// else the first 1 MiB of decompressed text containing "<|endoftext|>" -> EndOfText, else BlankLine.
CorpusFormat detectSourceFormat(const std::filesystem::path& path, Compression compression);

// Cheap change detection for gigabyte files: hash of the path, and the file's current size, mtime and 16
// blocks of 4 KiB at evenly spaced offsets (the first at 0, the last ending at the end; the whole file when
// it is under 64 KiB). Reads at most 64 KiB. A 16-digit hex string.
std::string sourceFingerprint(const SourceFile& file);

// What cache keys hold of a source: "<path>|<sourceFingerprint>|<format name>".
std::string sourceIdentity(const SourceFile& file);

// "none", "gzip", "zstd".
std::string compressionName(Compression compression);

}  // namespace mixerlab
