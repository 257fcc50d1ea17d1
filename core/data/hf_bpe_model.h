// The BPE model of a Hugging Face tokenizer.json (see hf_tokenizer_json.h): turns one word (a piece of
// normalized, pre-tokenized text) into token ids.
//
// With ignore_merges, a word that is a vocabulary piece as a whole becomes that one token without merging
// (Llama-3 style). Otherwise a word starts as its UTF-8 code points. A code point missing from the
// vocabulary becomes, with byte_fallback, one <0xNN> piece per UTF-8 byte (when all of them are in the
// vocabulary), otherwise the unknown token (consecutive ones fused into one with fuse_unk; dropped when the
// file has no unk_token, as the reference implementation does). Then the adjacent pair with the lowest merge
// rank (the leftmost among equal ranks) is merged, again and again, until no adjacent pair has a merge. An
// empty word has no tokens.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/data/hf_tokenizer_json.h"

namespace mixerlab {

class HfBpeModel {
 public:
  // Throws MixerLabError naming `source` when a merge or the unk_token is not in the vocabulary.
  HfBpeModel(const hf::TokenizerJson& spec, const std::string& source);

  // Appends the ids of `word` to `ids`.
  void encodeWord(std::string_view word, std::vector<int>& ids) const;

  const std::unordered_map<std::string, int>& vocab() const { return vocab_; }
  int unkId() const { return unk_id_; }  // -1 when the file has no unk_token

 private:
  struct Merge {
    int rank;
    int result;
  };
  static uint64_t pairKey(int left, int right) {
    return (static_cast<uint64_t>(static_cast<uint32_t>(left)) << 32) | static_cast<uint32_t>(right);
  }
  std::vector<int> initialSymbols(std::string_view word) const;
  void mergeAll(std::vector<int>& symbols) const;

  std::unordered_map<std::string, int> vocab_;
  std::unordered_map<uint64_t, Merge> merges_;  // (left id, right id) -> rank and merged id
  std::array<int, 256> byte_ids_{};             // id of <0xNN>, -1 when absent
  int unk_id_ = -1;
  bool byte_fallback_ = false;
  bool fuse_unk_ = false;
  bool ignore_merges_ = false;
};

}  // namespace mixerlab
