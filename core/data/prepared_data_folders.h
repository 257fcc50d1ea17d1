// The prepared data of a cache folder as a list: each data-<key> folder with its manifest and whether it
// still matches its corpus files and tokenizer, and each trained tokenizer with whether the corpus it
// learned from is unchanged. Changed corpora leave their old shards behind; this
// list names them, `mixerlab data prune` removes them, and preparation says which file changed.
#pragma once
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/data/data_manifest.h"

namespace mixerlab {

enum class PreparedDataState {
  Current,     // finished, and its corpus files and tokenizer are unchanged
  Unfinished,  // a preparation that was stopped or killed (it resumes when started again)
  Stale,       // a corpus file or the tokenizer changed or is gone: nothing will read it again
  OldFormat,   // a token cache or tokenizer of an earlier MixerLab (tokens-*.bin, tokenizer without sidecar)
};
std::string preparedDataStateName(PreparedDataState state);

struct PreparedDataEntry {
  std::filesystem::path path;  // the folder (or the old cache file)
  PreparedDataState state = PreparedDataState::Current;
  std::string reason;  // why it is stale, naming the file
  std::optional<DataManifest> manifest;
  uint64_t bytes = 0;  // on disk
};

// Every prepared-data folder, trained tokenizer and old token cache under cache_dir, by name.
std::vector<PreparedDataEntry> listPreparedData(const std::filesystem::path& cache_dir);

// "" when every source of the manifest is unchanged (size, mtime and sampled fingerprint) and its
// tokenizer file still has its hash and learned from unchanged files; else the first difference, naming the file.
std::string staleReason(const DataManifest& manifest);
// "" when every listed source is unchanged; else the first difference, naming the file.
std::string changedSourceReason(const std::vector<ManifestSource>& sources);
// "" when the trained tokenizer's sidecar lists unchanged files (or it has none: a ready-made file).
std::string tokenizerStaleReason(const std::filesystem::path& model);

// Removes the Stale and OldFormat entries (a tokenizer with its sidecar; never following symlinks);
// returns what was removed.
std::vector<PreparedDataEntry> pruneStalePreparedData(const std::filesystem::path& cache_dir);

}  // namespace mixerlab
