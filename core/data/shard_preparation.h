// Corpus sources -> token shards, streaming and resumable: the documents are read a block at a time
// (never the whole corpus), encoded on every core, and appended to uint16/uint32 shards of about
// shard_tokens tokens, each written under a temporary name and renamed. After each shard progress.json
// records where the next one starts, so a killed or stopped preparation resumes after its last finished
// shard and ends with exactly the shards an uninterrupted one writes; manifest.json is published last.
// The caller holds the cache folder's PreparationLock.
#pragma once
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "core/data/corpus_sources.h"
#include "core/data/data_manifest.h"
#include "core/data/document_encoder.h"
#include "core/data/document_stream.h"
#include "core/data/tokenizer.h"

namespace mixerlab {

struct PrepareProgress {
  std::string stage;  // "tokenizing", "counting documents", "sampling for the tokenizer"
  uint64_t source_bytes_done = 0, source_bytes_total = 0;
  uint64_t documents = 0, tokens = 0;
  double elapsed_s = 0;
};

// What bounds preparation's memory and work, shared by every stage.
struct PrepareLimits {
  uint64_t memory_bytes = uint64_t{2} << 30;  // text and token ids in flight stay well under this
  size_t max_document_bytes = size_t{256} << 20;
  unsigned threads = 0;  // encoding threads; 0 = every core
  const std::atomic<bool>* stop = nullptr;
  std::function<void(const PrepareProgress&)> on_progress;
  std::function<void(const std::string&)> log;
  // Text bytes encoded per block (all threads together): memory_bytes / 8.
  uint64_t blockBytes() const { return memory_bytes / 8; }
  unsigned encodingThreads() const;
};

struct ShardPreparation {
  std::vector<SourceFile> sources;
  std::string json_field = "text";
  NewlineMode newline = NewlineMode::Token;
  uint64_t shard_tokens = uint64_t{1} << 26;
  EncodeLimits encode_limits;
};

// The prepared-data key: hash of the sources' paths and fingerprints, formats, json_field, newline
// mode, shard size and the tokenizer's hash. The folder is cache_dir / ("data-" + key).
std::string preparedDataKey(const ShardPreparation& preparation, const Tokenizer& tokenizer);

// Returns the folder of the published shards: reused when its manifest exists (*reused = true), else
// prepared (resuming from progress.json when a previous attempt left one). Temporary files of killed
// writers are removed first. A stop request throws PreparationStopped after the last finished shard.
std::filesystem::path prepareTokenShards(const ShardPreparation& preparation, const Tokenizer& tokenizer,
                                         const std::filesystem::path& cache_dir, const PrepareLimits& limits,
                                         bool* reused = nullptr);

// One corpus input (a file, folder or glob) with default settings, under the cache folder's lock.
std::filesystem::path prepareCorpusShards(const std::filesystem::path& corpus, CorpusFormat format,
                                          const Tokenizer& tokenizer, const std::filesystem::path& cache_dir,
                                          bool* reused = nullptr, NewlineMode newline = NewlineMode::Token);

}  // namespace mixerlab
