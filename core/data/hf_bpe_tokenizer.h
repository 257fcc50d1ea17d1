// A Hugging Face `tokenizer.json` BPE tokenizer, of either kind hf_tokenizer_json.h reads: the Llama-2 /
// SentencePiece-like kind with byte fallback (the research's TinyStories tokenizers, docs/fidelity.md:
// trained with `train_new_from_iterator` from open_llama_3b's fast tokenizer; specials <unk>=0, <s>=1,
// </s>=2; pad := eos), and the byte-level kind of GPT-2 and Llama-3 (the research's Fineweb tokenizer is
// derived from Llama-3's). Written from the format's documentation; files outside the supported subset are
// rejected when loaded.
//
// encode(text) follows the file's pipeline with add_special_tokens=False (the post_processor is not run, so
// no BOS or EOS is ever added):
//   1. added tokens with normalized=false are found in the raw text (leftmost, longest) and become their ids;
//   2. each remaining piece is normalized (e.g. Prepend "▁" then Replace " " -> "▁"), and added tokens with
//      normalized=true are found in the normalized text (their content normalized the same way);
//   3. the pre-tokenizer (hf_pre_tokenizer.h) cuts each piece into words: Metaspace, or a regex Split and
//      ByteLevel, which turns every byte into its byte-level character;
//   4. the BPE model (hf_bpe_model.h) turns each word into ids.
// decode(ids) maps ids to their token strings (added tokens, specials included, to their content: nothing is
// skipped) and runs the file's decoder: e.g. Replace "▁" -> " ", ByteFallback, Fuse, Strip a leading space;
// or ByteLevel, which maps the characters back to bytes (a token with a character outside the byte table,
// such as an added token with a plain space, as its own bytes) and shows ill-formed UTF-8 as U+FFFD.
//
// The special ids are found by content, among the added tokens first: bos "<s>", else "<|begin_of_text|>"
// (Llama-3), else "<|endoftext|>" (GPT-2, where it is bos and eos); eos "</s>", else "<|end_of_text|>", else
// "<|endoftext|>"; pad "<pad>", else eos. Each is -1 when the file has none of them.
// Thread-safe: encode and decode only read.
#pragma once
#include <array>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/data/hf_bpe_model.h"
#include "core/data/hf_pre_tokenizer.h"
#include "core/data/hf_tokenizer_json.h"

namespace mixerlab {

class HfBpeTokenizer {
 public:
  // Parses tokenizer.json text; `source` (the file) is named in every error. Throws MixerLabError for files
  // outside the supported subset, and when the ids of the vocabulary and the added tokens leave a gap.
  static HfBpeTokenizer fromJson(std::string_view json_text, const std::string& source);

  std::vector<int> encode(std::string_view text) const;
  std::string decode(const std::vector<int>& ids) const;              // throws MixerLabError for an id out of range
  const std::string& piece(int id) const;                             // likewise
  int vocabSize() const { return static_cast<int>(pieces_.size()); }  // largest id + 1
  int unkId() const { return model_.unkId(); }                        // -1 without an unk_token
  int bosId() const { return bos_id_; }                               // see the top of this file
  int eosId() const { return eos_id_; }                               // likewise
  int padId() const { return pad_id_; }                               // "<pad>", else eos (pad := eos)

 private:
  // Finds added tokens in text: at each position the longest token that starts there.
  class AddedTokenMatcher {
   public:
    struct Piece {
      std::string_view text;  // a stretch of text between tokens (when id < 0)
      int id = -1;            // a matched token
      size_t offset = 0;      // where the piece starts in the searched text
    };
    void add(const std::string& content, int id);
    std::vector<Piece> split(std::string_view text) const;

   private:
    std::vector<std::pair<std::string, int>> tokens_;
    std::array<std::vector<size_t>, 256> by_first_byte_;  // indices into tokens_, longest first
  };

  HfBpeTokenizer(const hf::TokenizerJson& spec, const std::string& source);
  std::string normalize(std::string_view text) const;
  void encodeNormalized(std::string_view text, bool at_input_start, std::vector<int>& ids) const;
  // The id of the first of `contents` among the added tokens, else among all tokens; -1 when none is there.
  int firstTokenOf(const std::vector<hf::AddedToken>& added_tokens, std::initializer_list<const char*> contents) const;

  std::string source_;
  HfBpeModel model_;
  std::vector<hf::NormalizerStep> normalizer_;
  HfPreTokenizer pre_tokenizer_;
  std::optional<std::vector<hf::DecoderStep>> decoder_;
  AddedTokenMatcher raw_added_tokens_;
  AddedTokenMatcher normalized_added_tokens_;
  std::vector<std::string> pieces_;  // id -> token string
  int bos_id_ = -1;
  int eos_id_ = -1;
  int pad_id_ = -1;
};

}  // namespace mixerlab
