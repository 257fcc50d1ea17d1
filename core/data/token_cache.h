// Tokenized corpus on disk, memory-mapped read-only, so training reads token ids without re-tokenizing
// and without holding a copy of the corpus in memory: one token shard file (token_shard_file.h), or a
// prepared-data folder of shards listed by its manifest (data_manifest.h). Documents are numbered across
// the shards in manifest order.
#pragma once
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "core/data/document_encoder.h"
#include "core/data/token_shard_file.h"
#include "core/data/tokenizer.h"

namespace mixerlab {

class TokenCache {
 public:
  // A shard file, or a folder holding manifest.json and its shards. Validates every shard and checks the
  // manifest's counts; damage throws MixerLabError naming the file and saying to delete the prepared data.
  static TokenCache open(const std::filesystem::path& path);

  size_t numDocuments() const { return num_documents_; }
  size_t numTokens() const { return num_tokens_; }
  uint32_t tokenBytes() const;  // of the first shard (all shards of a folder share it)
  uint64_t fileBytes() const;   // all shards together
  size_t numShards() const { return shards_.size(); }
  TokenSpan document(size_t i) const;  // i < numDocuments(); the span stays valid while the cache lives
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  std::vector<MappedTokenShard> shards_;
  std::vector<size_t> first_document_;  // of each shard; back() = numDocuments()
  size_t num_documents_ = 0;
  size_t num_tokens_ = 0;
};

// Tokenizes every document (in parallel, order kept) into one shard file at out_path (temporary name +
// rename), uint16 when the tokenizer's vocabulary fits.
void buildTokenCache(const std::vector<std::string>& documents, const Tokenizer& tokenizer,
                     const std::filesystem::path& out_path, NewlineMode newline = NewlineMode::Token);

}  // namespace mixerlab
