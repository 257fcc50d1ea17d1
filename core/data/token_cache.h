// Tokenized corpus on disk, memory-mapped read-only, so training reads token ids without re-tokenizing
// and without holding a copy of the corpus in memory.
//
// File layout (little endian): 8-byte magic "MXLTOK01", uint64 n_docs, uint64 n_tokens,
// uint64 offsets[n_docs + 1] (offsets[0] = 0, offsets[n_docs] = n_tokens), int32 tokens[n_tokens].
// The header and offsets are whole multiples of 8 bytes, so the tokens start 8-byte aligned.
#pragma once
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "core/data/corpus_reader.h"
#include "core/data/tokenizer.h"

namespace mixerlab {

struct TokenSpan {
  const int32_t* data;
  size_t size;
};

class TokenCache {
 public:
  // Maps the file and validates magic, sizes and offsets; a damaged or truncated file throws
  // MixerLabError naming the path and saying to delete it so it is rebuilt.
  static TokenCache open(const std::filesystem::path& path);

  TokenCache(TokenCache&& other) noexcept;
  TokenCache& operator=(TokenCache&& other) noexcept;
  TokenCache(const TokenCache&) = delete;
  TokenCache& operator=(const TokenCache&) = delete;
  ~TokenCache();

  size_t numDocuments() const { return num_documents_; }
  size_t numTokens() const { return num_tokens_; }
  TokenSpan document(size_t i) const;  // i < numDocuments(); the span stays valid while the cache lives
  const std::filesystem::path& path() const { return path_; }

 private:
  TokenCache() = default;
  void release();

  std::filesystem::path path_;
  void* mapping_ = nullptr;
  size_t mapping_size_ = 0;
  size_t num_documents_ = 0;
  size_t num_tokens_ = 0;
  const uint64_t* offsets_ = nullptr;
  const int32_t* tokens_ = nullptr;
};

// How "\n" inside a document becomes tokens. Token: the tokenizer's own encoding (MixerLab's tokenizer
// has a newline token). Unk: as the research's TinyStories tokenizer, which had no newline: every run
// of "\n" becomes one <unk> id, and consecutive <unk>s are fused into one (HF BPE with fuse_unk).
enum class NewlineMode { Token, Unk };
NewlineMode parseNewlineMode(const std::string& name);  // "token" / "unk"; else MixerLabError
std::string newlineModeName(NewlineMode mode);

// The token ids of one document (no BOS/EOS). Unk mode encodes the whole text and replaces the
// newline token, so the text around a newline is tokenized exactly as in Token mode; a tokenizer
// without a standalone newline token gets its newline-free parts encoded one by one instead.
std::vector<int> encodeDocument(const Tokenizer& tokenizer, std::string_view text, NewlineMode newline);

// Tokenizes every document (in parallel, order kept) and writes the cache atomically (temp name + rename).
void buildTokenCache(const std::vector<std::string>& documents, const Tokenizer& tokenizer,
                     const std::filesystem::path& out_path, NewlineMode newline = NewlineMode::Token);

// cache_dir/"tokens-<corpuskey>-<tokenizerhash>.bin" (Unk mode: "...-nlunk.bin"), where corpuskey hashes
// the corpus bytes together with the resolved corpus format; built when missing (*reused = false), else
// reused (*reused = true).
std::filesystem::path ensureTokenCache(const std::filesystem::path& corpus_path, CorpusFormat format,
                                       const Tokenizer& tokenizer, const std::filesystem::path& cache_dir,
                                       bool* reused = nullptr, NewlineMode newline = NewlineMode::Token);
// The same for a corpus the caller already read.
std::filesystem::path ensureTokenCache(const CorpusFile& corpus, const Tokenizer& tokenizer,
                                       const std::filesystem::path& cache_dir, bool* reused = nullptr,
                                       NewlineMode newline = NewlineMode::Token);

}  // namespace mixerlab
