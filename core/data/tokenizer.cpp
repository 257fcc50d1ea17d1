// Tokenizer loading (SentencePiece or tokenizer.json), and SentencePiece training and caching (see tokenizer.h).
#include "core/data/tokenizer.h"

#include <cstdio>
#include <unordered_map>

#include "core/data/hf_bpe_tokenizer.h"
#include "core/data/sentencepiece_runtime.h"
#include "core/data/tokenizer_trainer_input.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/hashing.h"

namespace mixerlab {
namespace fs = std::filesystem;

namespace {

// Bump when the training recipe below changes, so cached models are retrained.
constexpr const char* kRecipeVersion = "spm-recipe-1";

// Feeds sentencepiece the chosen documents straight from memory (newlines inside them are kept).
class DocumentIterator : public sentencepiece::SentenceIterator {
 public:
  DocumentIterator(const std::vector<std::string>& documents, std::vector<size_t> picked)
      : documents_(documents), picked_(std::move(picked)) {}
  bool done() const override { return next_ >= picked_.size(); }
  void Next() override { ++next_; }
  const std::string& value() const override { return documents_[picked_[next_]]; }
  sentencepiece::util::Status status() const override { return {}; }

 private:
  const std::vector<std::string>& documents_;
  std::vector<size_t> picked_;
  size_t next_ = 0;
};

// All documents, or `cap` evenly spaced ones when there are more.
std::vector<size_t> pickTrainingDocuments(size_t count, int64_t cap) {
  const size_t n = cap > 0 ? std::min(count, static_cast<size_t>(cap)) : count;
  std::vector<size_t> picked(n);
  for (size_t k = 0; k < n; ++k) {
    picked[k] = static_cast<size_t>(static_cast<unsigned __int128>(k) * count / n);
  }
  return picked;
}

std::string formatDouble(double value) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", value);
  return buf;
}

void validate(const TokenizerSettings& s) {
  if (s.model_type != "bpe" && s.model_type != "unigram") {
    throw MixerLabError("tokenizer model_type \"" + s.model_type + "\" is not supported", "use \"bpe\" or \"unigram\"");
  }
  if (s.vocab_size < 16) {
    throw MixerLabError("tokenizer vocab_size " + std::to_string(s.vocab_size) + " is too small",
                        "use a vocab_size of at least a few hundred (e.g. 1024 or 4096)");
  }
  if (!(s.character_coverage > 0.0 && s.character_coverage <= 1.0)) {
    throw MixerLabError("tokenizer character_coverage " + formatDouble(s.character_coverage) + " is outside (0, 1]",
                        "use a value such as 0.9995 (or 1.0 for small alphabets)");
  }
}

std::unordered_map<std::string, std::string> trainerArguments(const TokenizerSettings& s) {
  return {
      {"model_type", s.model_type},
      {"vocab_size", std::to_string(s.vocab_size)},
      {"byte_fallback", s.byte_fallback ? "true" : "false"},
      {"character_coverage", formatDouble(s.character_coverage)},
      // Lossless text: no NFKC, no whitespace collapsing, and "\n" as an unsplittable token of its own.
      {"normalization_rule_name", "identity"},
      {"remove_extra_whitespaces", "false"},
      {"user_defined_symbols", "\n"},
      {"unk_id", "0"},
      {"bos_id", "1"},
      {"eos_id", "2"},
      {"pad_id", "3"},
      // Documents (whole stories) are the "sentences"; sample nothing inside sentencepiece.
      {"max_sentence_length", std::to_string(kTrainerMaxSentenceBytes)},
      {"input_sentence_size", "0"},
      {"shuffle_input_sentence", "false"},
      {"hard_vocab_limit", "true"},
      {"num_threads", "2"},
      {"minloglevel", "2"},
  };
}

}  // namespace

std::string TokenizerSettings::cacheKey() const {
  return std::string(kRecipeVersion) + ";vocab_size=" + std::to_string(vocab_size) + ";model_type=" + model_type +
         ";byte_fallback=" + (byte_fallback ? "1" : "0") + ";character_coverage=" + formatDouble(character_coverage) +
         ";max_training_documents=" + std::to_string(max_training_documents);
}

Tokenizer Tokenizer::load(const fs::path& model_path) {
  std::error_code ec;
  if (!fs::is_regular_file(model_path, ec)) {
    throw MixerLabError("tokenizer model " + model_path.string() + " does not exist",
                        "pass a checkpoint's tokenizer.model (runs/<run>/checkpoints/step-N/tokenizer.model), a "
                        "project's cache/tokenizer-*.model or a tokenizer.json");
  }
  const std::string bytes = readFile(model_path);
  Tokenizer tokenizer;
  tokenizer.model_path_ = model_path;
  tokenizer.hash_ = hashHex(bytes);
  // A serialized SentencePiece model is a protobuf and never starts like a JSON object.
  if (hf::looksLikeJsonObject(bytes)) {
    if (bytes.find("\"runs\"") != std::string::npos && bytes.find("\"corpus\"") != std::string::npos) {
      throw MixerLabError(model_path.string() + " is a MixerLab project file, not a tokenizer",
                          "pass its tokenizer: a checkpoint's tokenizer.model or the project's cache/tokenizer-*.model "
                          "(`mixerlab tokenizer train` writes one)");
    }
    tokenizer.hf_ = std::make_shared<const HfBpeTokenizer>(HfBpeTokenizer::fromJson(bytes, model_path.string()));
    return tokenizer;
  }
  auto processor = spm::newProcessor();
  const auto status = processor->LoadFromSerializedProto(bytes);
  if (!status.ok()) {
    throw MixerLabError("tokenizer model " + model_path.string() +
                            " is neither a SentencePiece model nor a Hugging Face tokenizer.json: " + status.message(),
                        model_path.parent_path().filename() == "cache"
                            ? "delete this cached model so the next run trains it again"
                            : "pass a SentencePiece .model or a Hugging Face tokenizer.json");
  }
  tokenizer.processor_ = std::move(processor);
  return tokenizer;
}

std::vector<int> Tokenizer::encode(std::string_view text) const {
  if (hf_) return hf_->encode(text);
  std::vector<int> ids;
  const auto status = processor_->Encode(text, &ids);
  if (!status.ok()) throw MixerLabError("cannot tokenize text with " + model_path_.string() + ": " + status.message());
  return ids;
}

std::string Tokenizer::decode(const std::vector<int>& ids) const {
  if (hf_) return hf_->decode(ids);
  std::string text;
  const auto status = processor_->Decode(ids, &text);
  if (!status.ok()) {
    throw MixerLabError("cannot decode token ids with " + model_path_.string() + ": " + status.message(),
                        "token ids must be below the vocabulary size " + std::to_string(vocabSize()));
  }
  return text;
}

std::string Tokenizer::piece(int id) const { return hf_ ? hf_->piece(id) : processor_->IdToPiece(id); }
int Tokenizer::vocabSize() const { return hf_ ? hf_->vocabSize() : processor_->GetPieceSize(); }
int Tokenizer::unkId() const { return hf_ ? hf_->unkId() : processor_->unk_id(); }
int Tokenizer::bosId() const { return hf_ ? hf_->bosId() : processor_->bos_id(); }
int Tokenizer::eosId() const { return hf_ ? hf_->eosId() : processor_->eos_id(); }
int Tokenizer::padId() const { return hf_ ? hf_->padId() : processor_->pad_id(); }

void trainTokenizer(const std::vector<std::string>& documents, const TokenizerSettings& settings,
                    const fs::path& out_model_path, const std::string& corpus_name) {
  validate(settings);
  if (documents.empty()) {
    throw MixerLabError("cannot train a tokenizer for " + out_model_path.string() + ": the corpus has no documents",
                        "check the corpus path and format");
  }
  std::vector<size_t> picked = pickTrainingDocuments(documents.size(), settings.max_training_documents);
  checkTrainerInput(documents, picked, settings, corpus_name);  // what would crash the trainer
  DocumentIterator iterator(documents, std::move(picked));
  std::string serialized;
  const auto status = spm::train(trainerArguments(settings), &iterator, &serialized);
  if (!status.ok()) {
    const std::string message = status.message();
    if (message.find("ocabulary size") != std::string::npos) {
      throw MixerLabError("the corpus is too small for a tokenizer with vocab_size " +
                              std::to_string(settings.vocab_size) + " (" + message + ")",
                          "use a smaller tokenizer vocab_size or a larger corpus");
    }
    throw MixerLabError("tokenizer training failed: " + message, "check the corpus and tokenizer settings");
  }
  writeFileAtomic(out_model_path, serialized);
}

}  // namespace mixerlab
