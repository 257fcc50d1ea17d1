// One token shard file: the token ids of whole documents, stored as uint16 when the vocabulary fits in
// 16 bits (every vocabulary the research uses) and as uint32 otherwise, written by appending and
// memory-mapped for reading. A prepared corpus is a folder of such shards plus a manifest
// (data_manifest.h); a single shard file is also a complete token cache on its own.
//
// File layout (little endian, every section 8-byte aligned):
//   bytes 0-7    magic "MXLSHD01"
//   bytes 8-11   uint32 token_bytes (2 or 4)
//   bytes 12-15  uint32 zero
//   bytes 16-23  uint64 n_docs
//   bytes 24-31  uint64 n_tokens
//   bytes 32-    tokens[n_tokens] (uint16 or uint32), zero-padded to a multiple of 8 bytes
//   then         uint64 offsets[n_docs + 1] (offsets[0] = 0, offsets[n_docs] = n_tokens)
// Offsets follow the tokens so a writer streams tokens without knowing how many documents come; the
// header is written last, so a file cut short by a kill never passes validation.
#pragma once
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace mixerlab {

// The token ids of one document inside a mapped shard; operator[] widens to int32.
struct TokenSpan {
  const void* data = nullptr;
  size_t size = 0;
  uint32_t token_bytes = 4;
  int32_t operator[](size_t i) const {
    return token_bytes == 2 ? static_cast<int32_t>(static_cast<const uint16_t*>(data)[i])
                            : static_cast<int32_t>(static_cast<const uint32_t*>(data)[i]);
  }
  std::vector<int> ids() const {  // a copy, widened
    std::vector<int> out(size);
    for (size_t i = 0; i < size; ++i) out[i] = (*this)[i];
    return out;
  }
};

// 2 when every id of a vocabulary of this size fits in uint16, else 4.
uint32_t tokenBytesForVocabulary(int64_t vocab_size);

// Writes one shard under a temporary name beside `final_path` ("<final>.tmp-<pid>-<n>"); commit() fsyncs
// and renames it into place. Destroyed without commit, the temporary file is removed. Errors (disk full
// included) throw MixerLabError naming the file and the fix.
class TokenShardWriter {
 public:
  TokenShardWriter(std::filesystem::path final_path, uint32_t token_bytes);
  ~TokenShardWriter();
  TokenShardWriter(const TokenShardWriter&) = delete;
  TokenShardWriter& operator=(const TokenShardWriter&) = delete;

  // Appends one document; an id outside [0, 2^(8*token_bytes)) throws MixerLabError.
  void addDocument(const std::vector<int>& ids);
  uint64_t numDocuments() const { return offsets_.size() - 1; }
  uint64_t numTokens() const { return offsets_.back(); }
  uint64_t fileBytes() const;  // the size the committed file will have
  void commit();

 private:
  void writeAt(const void* data, size_t size, uint64_t position);
  [[noreturn]] void fail(const std::string& what) const;

  std::filesystem::path final_path_, tmp_path_;
  uint32_t token_bytes_;
  int fd_ = -1;
  bool committed_ = false;
  std::vector<uint64_t> offsets_{0};
  std::vector<char> buffer_;  // token bytes not yet written
};

// A shard mapped read-only and validated (magic, token width, sizes, ascending offsets that span the
// tokens). A damaged or truncated file throws MixerLabError naming it and saying to delete the prepared
// data so it is prepared again.
class MappedTokenShard {
 public:
  static MappedTokenShard open(const std::filesystem::path& path);
  MappedTokenShard(MappedTokenShard&& other) noexcept;
  MappedTokenShard& operator=(MappedTokenShard&& other) noexcept;
  MappedTokenShard(const MappedTokenShard&) = delete;
  MappedTokenShard& operator=(const MappedTokenShard&) = delete;
  ~MappedTokenShard();

  uint64_t numDocuments() const { return num_documents_; }
  uint64_t numTokens() const { return num_tokens_; }
  uint32_t tokenBytes() const { return token_bytes_; }
  uint64_t fileBytes() const { return mapping_size_; }
  TokenSpan document(uint64_t i) const;  // i < numDocuments()
  const std::filesystem::path& path() const { return path_; }

 private:
  MappedTokenShard() = default;
  void release();

  std::filesystem::path path_;
  void* mapping_ = nullptr;
  size_t mapping_size_ = 0;
  uint64_t num_documents_ = 0, num_tokens_ = 0;
  uint32_t token_bytes_ = 4;
  const char* tokens_ = nullptr;
  const uint64_t* offsets_ = nullptr;
};

// Removes the temporary files writers left in `folder` (names containing ".tmp-"), for example after
// a kill; returns what it removed. Call only while no writer is active there (under the preparation lock).
std::vector<std::filesystem::path> removeStaleTemporaryFiles(const std::filesystem::path& folder);

}  // namespace mixerlab
