// Token shard files: writing by appending, mapping and validation (see token_shard_file.h).
#include "core/data/token_shard_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <utility>

#include "core/util/atomic_file.h"
#include "core/util/crash_point.h"
#include "core/util/error.h"

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "token shards are little endian");

namespace mixerlab {
namespace fs = std::filesystem;

namespace {

constexpr char kShardMagic[8] = {'M', 'X', 'L', 'S', 'H', 'D', '0', '1'};
constexpr uint64_t kShardHeaderBytes = 32;
constexpr size_t kShardFlushBytes = size_t{8} << 20;

uint64_t alignedTo8(uint64_t bytes) { return (bytes + 7) & ~uint64_t{7}; }

// Where the offsets start in a shard of n_tokens tokens of token_bytes each.
uint64_t offsetsPosition(uint64_t n_tokens, uint32_t token_bytes) {
  return alignedTo8(kShardHeaderBytes + n_tokens * token_bytes);
}

[[noreturn]] void throwDamagedShard(const fs::path& path, const std::string& problem) {
  throw MixerLabError("token shard " + path.string() + " is damaged: " + problem,
                      "delete the folder " + path.parent_path().string() +
                          " (prepared data; it is prepared again from the corpus on the next run)");
}

}  // namespace

uint32_t tokenBytesForVocabulary(int64_t vocab_size) { return vocab_size <= 65536 ? 2 : 4; }

TokenShardWriter::TokenShardWriter(fs::path final_path, uint32_t token_bytes)
    : final_path_(std::move(final_path)), token_bytes_(token_bytes) {
  if (token_bytes_ != 2 && token_bytes_ != 4) {
    throw MixerLabError("token shard width " + std::to_string(token_bytes_) + " bytes is not supported",
                        "use 2 (uint16) or 4 (uint32)");
  }
  static std::atomic<int> counter{0};
  tmp_path_ = final_path_.string() + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
  fd_ = ::open(tmp_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd_ < 0) fail("cannot create " + tmp_path_.string());
  buffer_.reserve(kShardFlushBytes + 4096);
}

TokenShardWriter::~TokenShardWriter() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_) ::unlink(tmp_path_.c_str());
}

void TokenShardWriter::addDocument(const std::vector<int>& ids) {
  const uint64_t limit = token_bytes_ == 2 ? 65536 : (uint64_t{1} << 32);
  const size_t start = buffer_.size();
  buffer_.resize(start + ids.size() * token_bytes_);
  char* out = buffer_.data() + start;
  for (const int id : ids) {
    if (id < 0 || static_cast<uint64_t>(id) >= limit) {
      buffer_.resize(start);
      throw MixerLabError("token id " + std::to_string(id) + " does not fit a " + std::to_string(token_bytes_) +
                              "-byte token shard (" + final_path_.string() + ")",
                          "the tokenizer's vocabulary is larger than the shard width: prepare the data again");
    }
    if (token_bytes_ == 2) {
      const auto v = static_cast<uint16_t>(id);
      std::memcpy(out, &v, 2);
    } else {
      const auto v = static_cast<uint32_t>(id);
      std::memcpy(out, &v, 4);
    }
    out += token_bytes_;
  }
  offsets_.push_back(offsets_.back() + ids.size());
  if (buffer_.size() >= kShardFlushBytes) {
    const uint64_t written_tokens = offsets_.back() - buffer_.size() / token_bytes_;
    writeAt(buffer_.data(), buffer_.size(), kShardHeaderBytes + written_tokens * token_bytes_);
    buffer_.clear();
  }
}

uint64_t TokenShardWriter::fileBytes() const {
  return offsetsPosition(numTokens(), token_bytes_) + 8 * offsets_.size();
}

void TokenShardWriter::commit() {
  const uint64_t n_tokens = numTokens();
  const uint64_t n_docs = numDocuments();
  const uint64_t written_tokens = n_tokens - buffer_.size() / token_bytes_;
  const uint64_t tokens_end = kShardHeaderBytes + n_tokens * token_bytes_;
  buffer_.resize(buffer_.size() + (offsetsPosition(n_tokens, token_bytes_) - tokens_end), 0);  // padding
  writeAt(buffer_.data(), buffer_.size(), kShardHeaderBytes + written_tokens * token_bytes_);
  buffer_.clear();
  crashPoint("shard-before-offsets");
  writeAt(offsets_.data(), offsets_.size() * sizeof(uint64_t), offsetsPosition(n_tokens, token_bytes_));
  char header[kShardHeaderBytes] = {};
  std::memcpy(header, kShardMagic, 8);
  std::memcpy(header + 8, &token_bytes_, 4);
  std::memcpy(header + 16, &n_docs, 8);
  std::memcpy(header + 24, &n_tokens, 8);
  writeAt(header, sizeof header, 0);
  if (::fsync(fd_) != 0) fail("cannot flush " + tmp_path_.string());
  ::close(fd_);
  fd_ = -1;
  renameAtomic(tmp_path_, final_path_);
  committed_ = true;
}

void TokenShardWriter::writeAt(const void* data, size_t size, uint64_t position) {
  const char* bytes = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::pwrite(fd_, bytes, size, static_cast<off_t>(position));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("cannot write " + tmp_path_.string());
    bytes += n;
    size -= static_cast<size_t>(n);
    position += static_cast<uint64_t>(n);
  }
}

void TokenShardWriter::fail(const std::string& what) const {
  const int err = errno;
  throw MixerLabError(what + ": " + (err == ENOSPC ? std::string("the disk is full") : std::strerror(err)),
                      "free disk space or check that the project's cache folder is writable, then start again "
                      "(finished shards are kept)");
}

MappedTokenShard MappedTokenShard::open(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    throw MixerLabError("cannot open token shard " + path.string() + ": " + std::strerror(errno),
                        "check the path; missing prepared data is prepared again from the corpus on the next run");
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || st.st_size < static_cast<off_t>(kShardHeaderBytes + 8)) {
    ::close(fd);
    throwDamagedShard(path, "the file is shorter than its header");
  }
  MappedTokenShard shard;
  shard.path_ = path;
  shard.mapping_size_ = static_cast<size_t>(st.st_size);
  void* mapping = ::mmap(nullptr, shard.mapping_size_, PROT_READ, MAP_SHARED, fd, 0);
  ::close(fd);
  if (mapping == MAP_FAILED) {
    throw MixerLabError("cannot memory-map token shard " + path.string() + ": " + std::strerror(errno));
  }
  shard.mapping_ = mapping;  // from here on the destructor unmaps, also when validation throws

  const auto* bytes = static_cast<const char*>(mapping);
  if (std::memcmp(bytes, kShardMagic, sizeof kShardMagic) != 0) {
    throwDamagedShard(path, "wrong magic (not a MixerLab token shard, or its write did not finish)");
  }
  std::memcpy(&shard.token_bytes_, bytes + 8, 4);
  std::memcpy(&shard.num_documents_, bytes + 16, 8);
  std::memcpy(&shard.num_tokens_, bytes + 24, 8);
  if (shard.token_bytes_ != 2 && shard.token_bytes_ != 4) throwDamagedShard(path, "unknown token width");
  const uint64_t max_count = shard.mapping_size_ / 2;
  if (shard.num_documents_ >= max_count || shard.num_tokens_ > max_count) {
    throwDamagedShard(path, "impossible document or token count");
  }
  const uint64_t offsets_at = offsetsPosition(shard.num_tokens_, shard.token_bytes_);
  const uint64_t expected = offsets_at + 8 * (shard.num_documents_ + 1);
  if (expected != shard.mapping_size_) {
    throwDamagedShard(path, "size is " + std::to_string(shard.mapping_size_) + " bytes, expected " +
                                std::to_string(expected) + " (truncated?)");
  }
  shard.tokens_ = bytes + kShardHeaderBytes;
  shard.offsets_ = reinterpret_cast<const uint64_t*>(bytes + offsets_at);
  if (shard.offsets_[0] != 0 || shard.offsets_[shard.num_documents_] != shard.num_tokens_) {
    throwDamagedShard(path, "offsets do not span the tokens");
  }
  for (uint64_t i = 0; i < shard.num_documents_; ++i) {
    if (shard.offsets_[i] > shard.offsets_[i + 1]) throwDamagedShard(path, "offsets are not ascending");
  }
  return shard;
}

MappedTokenShard::MappedTokenShard(MappedTokenShard&& other) noexcept { *this = std::move(other); }

MappedTokenShard& MappedTokenShard::operator=(MappedTokenShard&& other) noexcept {
  if (this != &other) {
    release();
    path_ = std::move(other.path_);
    mapping_ = std::exchange(other.mapping_, nullptr);
    mapping_size_ = std::exchange(other.mapping_size_, 0);
    num_documents_ = std::exchange(other.num_documents_, 0);
    num_tokens_ = std::exchange(other.num_tokens_, 0);
    token_bytes_ = other.token_bytes_;
    tokens_ = std::exchange(other.tokens_, nullptr);
    offsets_ = std::exchange(other.offsets_, nullptr);
  }
  return *this;
}

MappedTokenShard::~MappedTokenShard() { release(); }

void MappedTokenShard::release() {
  if (mapping_ != nullptr) ::munmap(mapping_, mapping_size_);
  mapping_ = nullptr;
}

TokenSpan MappedTokenShard::document(uint64_t i) const {
  if (i >= num_documents_) {
    throw std::out_of_range("token shard document " + std::to_string(i) + " of " + std::to_string(num_documents_));
  }
  return {tokens_ + offsets_[i] * token_bytes_, static_cast<size_t>(offsets_[i + 1] - offsets_[i]), token_bytes_};
}

std::vector<fs::path> removeStaleTemporaryFiles(const fs::path& folder) {
  std::vector<fs::path> removed;
  std::error_code ec;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.find(".tmp-") == std::string::npos) continue;
    std::error_code remove_error;
    // remove() deletes a symlink itself, never what it points to.
    if (fs::remove(it->path(), remove_error)) removed.push_back(it->path());
  }
  return removed;
}

}  // namespace mixerlab
