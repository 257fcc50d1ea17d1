// Tokenizers: a loaded tokenizer of either kind MixerLab reads, and SentencePiece training with a
// content-keyed training cache.
//
// Tokenizer::load reads a SentencePiece .model or a Hugging Face tokenizer.json (a Llama-2-style BPE with
// byte fallback, or a byte-level BPE of the GPT-2 / Llama-3 kind: the research's tokenizers are of these
// kinds; see hf_bpe_tokenizer.h), told apart by content, not by file name. Callers use the same interface
// for both. unkId() is -1 for a tokenizer without an unknown token (byte-level ones).
//
// Trained models are SentencePiece and lossless for our text: identity normalisation, whitespace kept as is,
// "\n" a user-defined token, and byte fallback for characters outside the learned vocabulary.
// SentencePiece is reached only through core/data/sentencepiece_runtime.h (see there why).
//
// Trained ids are fixed: <unk>=0, <s>=1, </s>=2, <pad>=3. A corpus too small for the requested vocab_size is
// an error (hard vocabulary limit kept on, so vocabSize() always equals the setting): trainTokenizer throws
// MixerLabError suggesting a smaller vocab_size or more data.
#pragma once
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace sentencepiece {
class SentencePieceProcessor;
}

namespace mixerlab {

class HfBpeTokenizer;

struct TokenizerSettings {
  int vocab_size = 4096;
  std::string model_type = "bpe";  // "bpe" or "unigram"
  bool byte_fallback = true;
  double character_coverage = 0.9995;
  int64_t max_training_documents = 200000;  // evenly spaced sample of the corpus when it has more
  // A ready-made tokenizer (SentencePiece .model or HF tokenizer.json) to use instead of training
  // one; empty: train on the corpus. vocab_size must then equal the file's vocabulary.
  std::string file;
  // Stable text of every field plus the training recipe's version, used in cache file names.
  std::string cacheKey() const;
};

class Tokenizer {
 public:
  // A SentencePiece .model or a Hugging Face tokenizer.json (a JSON object with a "model"), by content.
  // Throws MixerLabError naming the path if the file is missing, is neither, or is a tokenizer.json MixerLab
  // does not implement (hf_tokenizer_json.h says what is supported).
  static Tokenizer load(const std::filesystem::path& model_path);

  std::vector<int> encode(std::string_view text) const;  // no BOS/EOS added
  // SentencePiece drops control tokens (<s>, </s>, <pad>); a tokenizer.json shows special tokens as their text.
  std::string decode(const std::vector<int>& ids) const;
  std::string piece(int id) const;
  int vocabSize() const;
  int unkId() const;
  int bosId() const;
  int eosId() const;
  int padId() const;  // a tokenizer.json without a <pad> token pads with eos, as the research does
  bool isHuggingFaceJson() const { return hf_ != nullptr; }  // loaded from a tokenizer.json
  const std::filesystem::path& modelPath() const { return model_path_; }
  const std::string& hash() const { return hash_; }  // hashHex of the file bytes

 private:
  Tokenizer() = default;
  // Exactly one of the two is set. Both are thread-safe for encode/decode.
  std::shared_ptr<sentencepiece::SentencePieceProcessor> processor_;
  std::shared_ptr<const HfBpeTokenizer> hf_;
  std::filesystem::path model_path_;
  std::string hash_;
};

// Trains on `documents` (each may contain newlines) in memory and writes the .model atomically.
// Output is deterministic for the same documents and settings. Documents SentencePiece's trainer would
// crash on (tokenizer_trainer_input.h) are refused first with a MixerLabError naming `corpus_name`.
void trainTokenizer(const std::vector<std::string>& documents, const TokenizerSettings& settings,
                    const std::filesystem::path& out_model_path, const std::string& corpus_name = {});

// Cached training over corpus files (streamed, in bounded memory) is in tokenizer_sample.h.

}  // namespace mixerlab
