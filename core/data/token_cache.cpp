// Memory-mapped token cache: building, validation and lookup (see token_cache.h).
#include "core/data/token_cache.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <thread>
#include <utility>

#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/hashing.h"

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the token cache format is little endian");
static_assert(sizeof(int) == sizeof(int32_t), "token ids are stored as int32");

namespace mixerlab {
namespace fs = std::filesystem;

namespace {

constexpr char kMagic[8] = {'M', 'X', 'L', 'T', 'O', 'K', '0', '1'};
constexpr size_t kHeaderBytes = 24;  // magic + n_docs + n_tokens

[[noreturn]] void throwDamaged(const fs::path& path, const std::string& problem) {
  throw MixerLabError("token cache " + path.string() + " is damaged: " + problem,
                      "delete it to rebuild it (it is rebuilt from the corpus on the next run)");
}

// Sequential writer for the temporary file, with a positioned write for the header at the end.
class CacheFileWriter {
 public:
  explicit CacheFileWriter(fs::path final_path) : final_path_(std::move(final_path)) {
    static std::atomic<int> counter{0};
    tmp_path_ = final_path_.string() + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
    fd_ = ::open(tmp_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0) fail("cannot create " + tmp_path_.string());
  }
  ~CacheFileWriter() {
    if (fd_ >= 0) ::close(fd_);
    if (!committed_) ::unlink(tmp_path_.c_str());
  }
  void skip(size_t size) { end_ += size; }  // leaves a hole, filled later by writeAt
  void append(const void* data, size_t size) {
    writeAt(data, size, end_);
    end_ += size;
  }
  void writeAt(const void* data, size_t size, uint64_t position) {
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
  void commit() {
    if (::fsync(fd_) != 0) fail("cannot flush " + tmp_path_.string());
    ::close(fd_);
    fd_ = -1;
    renameAtomic(tmp_path_, final_path_);
    committed_ = true;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    const int err = errno;
    throw MixerLabError(what + ": " + (err == ENOSPC ? std::string("the disk is full") : std::strerror(err)),
                        "free disk space or check that the cache folder is writable");
  }
  fs::path final_path_;
  fs::path tmp_path_;
  int fd_ = -1;
  uint64_t end_ = 0;
  bool committed_ = false;
};

// Encodes documents for one NewlineMode; finds the tokenizer's newline token once.
class DocumentEncoder {
 public:
  DocumentEncoder(const Tokenizer& tokenizer, NewlineMode mode) : tokenizer_(tokenizer), mode_(mode) {
    if (mode_ != NewlineMode::Unk) return;
    if (tokenizer_.unkId() < 0) {  // a byte-level tokenizer.json has no unknown token
      throw MixerLabError(tokenizer_.modelPath().string() + " has no unknown token, so newlines cannot become one",
                          "set train.newline to \"token\" (the default) for this tokenizer");
    }
    for (int id : tokenizer_.encode("\n")) {
      if (tokenizer_.piece(id) == "\n") newline_id_ = id;
    }
  }

  std::vector<int> operator()(std::string_view text) const {
    if (mode_ == NewlineMode::Token) return tokenizer_.encode(text);
    const auto newlines = static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
    const std::vector<int> ids = tokenizer_.encode(text);
    const int unk = tokenizer_.unkId();
    std::vector<int> out;
    auto push = [&](int id) {
      if (!(id == unk && !out.empty() && out.back() == unk)) out.push_back(id);  // fuse <unk>s
    };
    if (newlines == 0 ||
        (newline_id_ >= 0 && static_cast<size_t>(std::count(ids.begin(), ids.end(), newline_id_)) == newlines)) {
      for (int id : ids) push(id == newline_id_ ? unk : id);
      return out;
    }
    // No standalone newline token: encode the parts between newline runs, join them with <unk>.
    size_t start = 0;
    while (start <= text.size()) {
      const size_t end = std::min(text.find('\n', start), text.size());
      if (end > start) {
        for (int id : tokenizer_.encode(text.substr(start, end - start))) push(id);
      }
      if (end == text.size()) break;
      push(unk);
      start = end + 1;
    }
    return out;
  }

 private:
  const Tokenizer& tokenizer_;
  NewlineMode mode_;
  int newline_id_ = -1;
};

// Encodes documents[begin, end) on several threads; result[k] holds document begin + k.
std::vector<std::vector<int>> encodeBlock(const std::vector<std::string>& documents, size_t begin, size_t end,
                                          const DocumentEncoder& encode, unsigned num_threads) {
  std::vector<std::vector<int>> result(end - begin);
  std::atomic<size_t> next{begin};
  auto work = [&] {
    for (size_t i = next++; i < end; i = next++) result[i - begin] = encode(documents[i]);
  };
  std::vector<std::thread> workers;
  for (unsigned t = 1; t < num_threads; ++t) workers.emplace_back(work);
  work();
  for (auto& w : workers) w.join();
  return result;
}

}  // namespace

TokenCache TokenCache::open(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    throw MixerLabError("cannot open token cache " + path.string() + ": " + std::strerror(errno),
                        "check the path; a missing cache is rebuilt from the corpus on the next run");
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || st.st_size < static_cast<off_t>(kHeaderBytes)) {
    ::close(fd);
    throwDamaged(path, "the file is shorter than its header");
  }
  TokenCache cache;
  cache.path_ = path;
  cache.mapping_size_ = static_cast<size_t>(st.st_size);
  void* mapping = ::mmap(nullptr, cache.mapping_size_, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (mapping == MAP_FAILED) {
    throw MixerLabError("cannot memory-map token cache " + path.string() + ": " + std::strerror(errno));
  }
  cache.mapping_ = mapping;  // from here on the destructor unmaps, also when validation throws

  const auto* bytes = static_cast<const char*>(mapping);
  if (std::memcmp(bytes, kMagic, sizeof kMagic) != 0) throwDamaged(path, "wrong magic (not a MixerLab token cache)");
  uint64_t n_docs = 0;
  uint64_t n_tokens = 0;
  std::memcpy(&n_docs, bytes + 8, 8);
  std::memcpy(&n_tokens, bytes + 16, 8);
  const uint64_t max_count = cache.mapping_size_ / 4;
  if (n_docs >= max_count || n_tokens > max_count) throwDamaged(path, "impossible document or token count");
  const uint64_t expected = kHeaderBytes + 8 * (n_docs + 1) + 4 * n_tokens;
  if (expected != cache.mapping_size_) {
    throwDamaged(path, "size is " + std::to_string(cache.mapping_size_) + " bytes, expected " +
                           std::to_string(expected) + " (truncated?)");
  }
  cache.num_documents_ = static_cast<size_t>(n_docs);
  cache.num_tokens_ = static_cast<size_t>(n_tokens);
  cache.offsets_ = reinterpret_cast<const uint64_t*>(bytes + kHeaderBytes);
  cache.tokens_ = reinterpret_cast<const int32_t*>(bytes + kHeaderBytes + 8 * (n_docs + 1));
  if (cache.offsets_[0] != 0 || cache.offsets_[n_docs] != n_tokens)
    throwDamaged(path, "offsets do not span the tokens");
  for (uint64_t i = 0; i < n_docs; ++i) {
    if (cache.offsets_[i] > cache.offsets_[i + 1]) throwDamaged(path, "offsets are not ascending");
  }
  return cache;
}

TokenCache::TokenCache(TokenCache&& other) noexcept { *this = std::move(other); }

TokenCache& TokenCache::operator=(TokenCache&& other) noexcept {
  if (this != &other) {
    release();
    path_ = std::move(other.path_);
    mapping_ = std::exchange(other.mapping_, nullptr);
    mapping_size_ = std::exchange(other.mapping_size_, 0);
    num_documents_ = std::exchange(other.num_documents_, 0);
    num_tokens_ = std::exchange(other.num_tokens_, 0);
    offsets_ = std::exchange(other.offsets_, nullptr);
    tokens_ = std::exchange(other.tokens_, nullptr);
  }
  return *this;
}

TokenCache::~TokenCache() { release(); }

void TokenCache::release() {
  if (mapping_ != nullptr) ::munmap(mapping_, mapping_size_);
  mapping_ = nullptr;
}

TokenSpan TokenCache::document(size_t i) const {
  if (i >= num_documents_) {
    throw std::out_of_range("token cache document " + std::to_string(i) + " of " + std::to_string(num_documents_));
  }
  return {tokens_ + offsets_[i], static_cast<size_t>(offsets_[i + 1] - offsets_[i])};
}

NewlineMode parseNewlineMode(const std::string& name) {
  if (name == "token") return NewlineMode::Token;
  if (name == "unk") return NewlineMode::Unk;
  throw MixerLabError("unknown newline mode \"" + name + "\"", "use \"token\" or \"unk\"");
}

std::string newlineModeName(NewlineMode mode) { return mode == NewlineMode::Unk ? "unk" : "token"; }

std::vector<int> encodeDocument(const Tokenizer& tokenizer, std::string_view text, NewlineMode newline) {
  return DocumentEncoder(tokenizer, newline)(text);
}

void buildTokenCache(const std::vector<std::string>& documents, const Tokenizer& tokenizer, const fs::path& out_path,
                     NewlineMode newline) {
  const DocumentEncoder encode(tokenizer, newline);
  if (out_path.has_parent_path()) fs::create_directories(out_path.parent_path());
  CacheFileWriter writer(out_path);
  const uint64_t n_docs = documents.size();
  std::vector<uint64_t> offsets(1, 0);
  offsets.reserve(documents.size() + 1);
  // Tokens go after the header and offsets, whose size is known up front; both are written last.
  const uint64_t tokens_start = kHeaderBytes + 8 * (n_docs + 1);
  writer.skip(tokens_start);

  const unsigned num_threads = std::max(1u, std::min(8u, std::thread::hardware_concurrency()));
  const size_t block = 1024 * static_cast<size_t>(num_threads);
  for (size_t begin = 0; begin < documents.size(); begin += block) {
    const size_t end = std::min(documents.size(), begin + block);
    for (const auto& ids : encodeBlock(documents, begin, end, encode, num_threads)) {
      writer.append(ids.data(), ids.size() * sizeof(int32_t));
      offsets.push_back(offsets.back() + ids.size());
    }
  }
  const uint64_t n_tokens = offsets.back();
  char header[kHeaderBytes];
  std::memcpy(header, kMagic, 8);
  std::memcpy(header + 8, &n_docs, 8);
  std::memcpy(header + 16, &n_tokens, 8);
  writer.writeAt(header, sizeof header, 0);
  writer.writeAt(offsets.data(), offsets.size() * sizeof(uint64_t), kHeaderBytes);
  writer.commit();
}

fs::path ensureTokenCache(const fs::path& corpus_path, CorpusFormat format, const Tokenizer& tokenizer,
                          const fs::path& cache_dir, bool* reused, NewlineMode newline) {
  return ensureTokenCache(loadCorpusFile(corpus_path, format), tokenizer, cache_dir, reused, newline);
}

fs::path ensureTokenCache(const CorpusFile& corpus, const Tokenizer& tokenizer, const fs::path& cache_dir, bool* reused,
                          NewlineMode newline) {
  // Token mode keeps the name caches had before the mode existed; other modes get their own file.
  const std::string mode = newline == NewlineMode::Token ? "" : "-nl" + newlineModeName(newline);
  const fs::path path = cache_dir / ("tokens-" + hashHex(corpus.cacheKey()) + "-" + tokenizer.hash() + mode + ".bin");
  std::error_code ec;
  if (fs::is_regular_file(path, ec)) {
    if (reused) *reused = true;
    return path;
  }
  fs::create_directories(cache_dir);
  buildTokenCache(corpus.documents(), tokenizer, path, newline);
  if (reused) *reused = false;
  return path;
}

}  // namespace mixerlab
