// SentencePiece tokenizer: training on a corpus's documents, a content-keyed training cache, and a small
// loaded-model wrapper. Models are lossless for our text: identity normalisation, whitespace kept as is,
// "\n" a user-defined token, and byte fallback for characters outside the learned vocabulary.
//
// SentencePiece is reached only through core/data/sentencepiece_runtime.h (see there why).
//
// Ids are fixed: <unk>=0, <s>=1, </s>=2, <pad>=3. A corpus too small for the requested vocab_size is an error
// (hard vocabulary limit kept on, so vocabSize() always equals the setting): trainTokenizer throws
// MixerLabError suggesting a smaller vocab_size or more data.
#pragma once
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/data/corpus_reader.h"

namespace sentencepiece {
class SentencePieceProcessor;
}

namespace mixerlab {

struct TokenizerSettings {
  int vocab_size = 4096;
  std::string model_type = "bpe";  // "bpe" or "unigram"
  bool byte_fallback = true;
  double character_coverage = 0.9995;
  int64_t max_training_documents = 200000;  // evenly spaced sample of the corpus when it has more
  // Stable text of every field plus the training recipe's version, used in cache file names.
  std::string cacheKey() const;
};

class Tokenizer {
 public:
  // Throws MixerLabError naming the path if the file is missing or not a SentencePiece model.
  static Tokenizer load(const std::filesystem::path& model_path);

  std::vector<int> encode(std::string_view text) const;  // no BOS/EOS added
  std::string decode(const std::vector<int>& ids) const;
  std::string piece(int id) const;
  int vocabSize() const;
  int unkId() const;
  int bosId() const;
  int eosId() const;
  int padId() const;
  const std::filesystem::path& modelPath() const { return model_path_; }
  const std::string& hash() const { return hash_; }  // hashHex of the .model file bytes

 private:
  Tokenizer() = default;
  std::shared_ptr<sentencepiece::SentencePieceProcessor> processor_;  // thread-safe for encode/decode
  std::filesystem::path model_path_;
  std::string hash_;
};

// Trains on `documents` (each may contain newlines) in memory and writes the .model atomically.
// Output is deterministic for the same documents and settings.
void trainTokenizer(const std::vector<std::string>& documents, const TokenizerSettings& settings,
                    const std::filesystem::path& out_model_path);

// Cached training: cache_dir/"tokenizer-<key>.model", key = hash of (corpus bytes hash, resolved corpus
// format, settings.cacheKey()). Reuses an existing file (*reused = true), otherwise reads the corpus and
// trains. Creates cache_dir. Throws MixerLabError if the corpus has no documents.
std::filesystem::path ensureTokenizer(const std::filesystem::path& corpus_path, CorpusFormat format,
                                      const TokenizerSettings& settings, const std::filesystem::path& cache_dir,
                                      bool* reused = nullptr);
// The same for a corpus the caller already read (run preparation reads and hashes it only once).
std::filesystem::path ensureTokenizer(const CorpusFile& corpus, const TokenizerSettings& settings,
                                      const std::filesystem::path& cache_dir, bool* reused = nullptr);

}  // namespace mixerlab
