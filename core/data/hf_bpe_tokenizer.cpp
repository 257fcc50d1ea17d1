// The tokenizer.json pipeline: added tokens, normalizer, pre-tokenizer, BPE model, decoder (see
// hf_bpe_tokenizer.h).
#include "core/data/hf_bpe_tokenizer.h"

#include <algorithm>

#include "core/data/hf_decoder.h"
#include "core/util/error.h"

namespace mixerlab {

void HfBpeTokenizer::AddedTokenMatcher::add(const std::string& content, int id) {
  if (content.empty()) return;
  tokens_.emplace_back(content, id);
  auto& bucket = by_first_byte_[static_cast<unsigned char>(content[0])];
  bucket.push_back(tokens_.size() - 1);
  std::stable_sort(bucket.begin(), bucket.end(),
                   [&](size_t a, size_t b) { return tokens_[a].first.size() > tokens_[b].first.size(); });
}

std::vector<HfBpeTokenizer::AddedTokenMatcher::Piece> HfBpeTokenizer::AddedTokenMatcher::split(
    std::string_view text) const {
  std::vector<Piece> pieces;
  size_t text_start = 0;  // start of the text not yet emitted
  for (size_t pos = 0; pos < text.size();) {
    const auto& bucket = by_first_byte_[static_cast<unsigned char>(text[pos])];
    const auto match = std::find_if(bucket.begin(), bucket.end(), [&](size_t index) {
      return text.compare(pos, tokens_[index].first.size(), tokens_[index].first) == 0;
    });
    if (match == bucket.end()) {
      ++pos;
      continue;
    }
    if (pos > text_start) pieces.push_back({text.substr(text_start, pos - text_start), -1, text_start});
    pieces.push_back({text.substr(pos, tokens_[*match].first.size()), tokens_[*match].second, pos});
    pos += tokens_[*match].first.size();
    text_start = pos;
  }
  if (text_start < text.size()) pieces.push_back({text.substr(text_start), -1, text_start});
  return pieces;
}

HfBpeTokenizer HfBpeTokenizer::fromJson(std::string_view json_text, const std::string& source) {
  return HfBpeTokenizer(hf::parseTokenizerJson(json_text, source), source);
}

HfBpeTokenizer::HfBpeTokenizer(const hf::TokenizerJson& spec, const std::string& source)
    : source_(source),
      model_(spec, source),
      normalizer_(spec.normalizer),
      pre_tokenizer_(spec.pre_tokenizer, source),
      decoder_(spec.decoder) {
  // id -> token string: the vocabulary, then the added tokens (their content is what decode shows).
  int64_t size = 0;  // the largest id + 1 (int64: an id of INT_MAX + 1 does not overflow)
  for (const auto& [piece, id] : spec.vocab) size = std::max<int64_t>(size, int64_t{id} + 1);
  for (const auto& token : spec.added_tokens) size = std::max<int64_t>(size, int64_t{token.id} + 1);
  // Ids run from 0 without gaps, so none reaches the number of entries: checked before the table is
  // made, since one id of 100,000,000 in a 60-token file would ask for gigabytes (fuzz-found).
  const size_t entries = spec.vocab.size() + spec.added_tokens.size();
  if (size > static_cast<int64_t>(entries)) {
    throw MixerLabError(source + ": token id " + std::to_string(size - 1) + " is beyond the " +
                            std::to_string(entries) + " tokens the file defines (the vocabulary has gaps)",
                        "use a tokenizer.json whose ids run from 0 without gaps");
  }
  std::vector<bool> filled(static_cast<size_t>(size), false);
  pieces_.resize(static_cast<size_t>(size));
  for (const auto& [piece, id] : spec.vocab) {
    if (id < 0 || filled[id]) {
      throw MixerLabError(source + ": vocab id " + std::to_string(id) + " (\"" + piece + "\") is negative or repeated",
                          "check the tokenizer.json");
    }
    pieces_[id] = piece;
    filled[id] = true;
  }
  for (const auto& token : spec.added_tokens) {
    if (token.id < 0) throw MixerLabError(source + ": added token \"" + token.content + "\" has a negative id");
    pieces_[token.id] = token.content;
    filled[token.id] = true;
    if (token.normalized) {
      normalized_added_tokens_.add(normalize(token.content), token.id);
    } else {
      raw_added_tokens_.add(token.content, token.id);
    }
  }
  if (const auto gap = std::find(filled.begin(), filled.end(), false); gap != filled.end()) {
    throw MixerLabError(source + ": id " + std::to_string(gap - filled.begin()) + " of " + std::to_string(size) +
                            " has no token (the vocabulary has gaps)",
                        "use a tokenizer.json whose ids run from 0 without gaps");
  }
  bos_id_ = firstTokenOf(spec.added_tokens, {"<s>", "<|begin_of_text|>", "<|endoftext|>"});
  eos_id_ = firstTokenOf(spec.added_tokens, {"</s>", "<|end_of_text|>", "<|endoftext|>"});
  const int pad = firstTokenOf(spec.added_tokens, {"<pad>"});
  pad_id_ = pad >= 0 ? pad : eos_id_;
}

int HfBpeTokenizer::firstTokenOf(const std::vector<hf::AddedToken>& added_tokens,
                                 std::initializer_list<const char*> contents) const {
  // Added tokens first: in a byte-level vocabulary "<s>" may be ordinary text (a merge of '<', 's', '>').
  for (const char* content : contents) {
    for (const auto& token : added_tokens) {
      if (token.content == content) return token.id;
    }
  }
  for (const char* content : contents) {
    const auto it = std::find(pieces_.begin(), pieces_.end(), content);
    if (it != pieces_.end()) return static_cast<int>(it - pieces_.begin());
  }
  return -1;
}

std::string HfBpeTokenizer::normalize(std::string_view text) const {
  std::string normalized(text);
  for (const auto& step : normalizer_) {
    if (step.kind == hf::NormalizerStep::Kind::Prepend) {
      if (!normalized.empty()) normalized.insert(0, step.content);
    } else {
      normalized = hf::replaceAll(normalized, step.pattern, step.content);
    }
  }
  return normalized;
}

void HfBpeTokenizer::encodeNormalized(std::string_view text, bool at_input_start, std::vector<int>& ids) const {
  for (const std::string& word : pre_tokenizer_.words(text, at_input_start)) model_.encodeWord(word, ids);
}

std::vector<int> HfBpeTokenizer::encode(std::string_view text) const {
  std::vector<int> ids;
  for (const auto& raw : raw_added_tokens_.split(text)) {
    if (raw.id >= 0) {
      ids.push_back(raw.id);
      continue;
    }
    const std::string normalized = normalize(raw.text);
    for (const auto& piece : normalized_added_tokens_.split(normalized)) {
      if (piece.id >= 0) {
        ids.push_back(piece.id);
      } else {
        encodeNormalized(piece.text, raw.offset == 0 && piece.offset == 0, ids);
      }
    }
  }
  return ids;
}

const std::string& HfBpeTokenizer::piece(int id) const {
  if (id < 0 || id >= vocabSize()) {
    throw MixerLabError("token id " + std::to_string(id) + " is outside the vocabulary of " + source_,
                        "token ids must be below the vocabulary size " + std::to_string(vocabSize()));
  }
  return pieces_[id];
}

std::string HfBpeTokenizer::decode(const std::vector<int>& ids) const {
  std::vector<std::string> tokens;
  tokens.reserve(ids.size());
  for (int id : ids) tokens.push_back(piece(id));
  return hf::decodeTokens(decoder_, std::move(tokens));
}

}  // namespace mixerlab
