// Memory-mapped token caches over one shard or a prepared-data folder (see token_cache.h).
#include "core/data/token_cache.h"

#include <algorithm>
#include <thread>

#include "core/data/data_manifest.h"
#include "core/util/error.h"

namespace mixerlab {
namespace fs = std::filesystem;

TokenCache TokenCache::open(const fs::path& path) {
  TokenCache cache;
  cache.path_ = path;
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    const auto manifest = readDataManifest(manifestFile(path));
    if (!manifest || !manifest->complete) {
      throw MixerLabError("prepared data " + path.string() + " has no finished manifest.json",
                          "prepare it: mixerlab data prepare PROJECT (or start the run, which prepares it)");
    }
    for (const ManifestShard& entry : manifest->shards) {
      MappedTokenShard shard = MappedTokenShard::open(path / entry.file);
      if (shard.numDocuments() != entry.documents || shard.numTokens() != entry.tokens) {
        throw MixerLabError("token shard " + (path / entry.file).string() + " holds " +
                                std::to_string(shard.numDocuments()) + " documents and " +
                                std::to_string(shard.numTokens()) + " tokens, but the manifest lists " +
                                std::to_string(entry.documents) + " and " + std::to_string(entry.tokens),
                            "delete the folder " + path.string() + " to prepare the data again");
      }
      cache.shards_.push_back(std::move(shard));
    }
  } else {
    cache.shards_.push_back(MappedTokenShard::open(path));
  }
  for (const MappedTokenShard& shard : cache.shards_) {
    cache.first_document_.push_back(cache.num_documents_);
    cache.num_documents_ += shard.numDocuments();
    cache.num_tokens_ += shard.numTokens();
  }
  cache.first_document_.push_back(cache.num_documents_);
  return cache;
}

uint32_t TokenCache::tokenBytes() const { return shards_.empty() ? 2 : shards_.front().tokenBytes(); }

uint64_t TokenCache::fileBytes() const {
  uint64_t bytes = 0;
  for (const MappedTokenShard& shard : shards_) bytes += shard.fileBytes();
  return bytes;
}

TokenSpan TokenCache::document(size_t i) const {
  if (i >= num_documents_) {
    throw std::out_of_range("token cache document " + std::to_string(i) + " of " + std::to_string(num_documents_));
  }
  const auto shard = static_cast<size_t>(std::upper_bound(first_document_.begin(), first_document_.end(), i) -
                                         first_document_.begin() - 1);
  return shards_[shard].document(i - first_document_[shard]);
}

void buildTokenCache(const std::vector<std::string>& documents, const Tokenizer& tokenizer, const fs::path& out_path,
                     NewlineMode newline) {
  const DocumentEncoder encode(tokenizer, newline);
  if (out_path.has_parent_path()) fs::create_directories(out_path.parent_path());
  TokenShardWriter writer(out_path, tokenBytesForVocabulary(tokenizer.vocabSize()));
  const unsigned num_threads = std::max(1u, std::min(8u, std::thread::hardware_concurrency()));
  for (const auto& ids : encodeDocuments(documents, encode, num_threads)) writer.addDocument(ids);
  writer.commit();
}

}  // namespace mixerlab
