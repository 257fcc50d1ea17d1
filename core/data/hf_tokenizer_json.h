// The subset of a Hugging Face `tokenizer.json` that MixerLab implements, read into plain structs: BPE models
// of two kinds. The Llama-2 / SentencePiece-like kind (normalizer Prepend + Replace or pre-tokenizer Metaspace,
// byte fallback), and the byte-level kind of GPT-2 and Llama-3 (pre-tokenizer ByteLevel, alone or after a
// regex Split, decoder ByteLevel). Anything outside the subset (another model type, a NFC, NFKC or regex
// normalizer, another pre-tokenizer or Split behaviour, BPE dropout, ...) is rejected with a MixerLabError
// that names the file and the unsupported component, so a tokenizer is never applied differently from what
// its file says. The post_processor is not read: MixerLab encodes without adding special tokens.
// hf_bpe_tokenizer.h runs what is read here.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/data/hf_split_regex.h"

namespace mixerlab::hf {

// One normalizer of a "Sequence" (or the only one). Prepend adds `content` in front of non-empty text;
// Replace substitutes every occurrence of the literal `pattern` with `content`.
struct NormalizerStep {
  enum class Kind { Prepend, Replace };
  Kind kind = Kind::Prepend;
  std::string pattern;
  std::string content;
};

// When the Metaspace pre-tokenizer puts `replacement` in front of a piece of text that does not start with it:
// always, only for the piece at the very start of the input ("first"), or never.
enum class PrependScheme { Always, First, Never };

// The Metaspace pre-tokenizer (and decoder): spaces become `replacement`; with `split`, each replacement
// character starts a new word.
struct Metaspace {
  std::string replacement = "\u2581";
  PrependScheme prepend_scheme = PrependScheme::Always;
  bool split = true;
};

// One pre-tokenizer of a "Sequence" (or the only one). Each cuts the pieces of text the one before it left:
//   Metaspace: see above;
//   Split: the pattern's matches and the stretches between them each become a piece (behavior "Isolated",
//     the only one read; "invert" does not change the pieces then);
//   ByteLevel: a space goes in front of each piece that does not start with one (add_prefix_space), the piece
//     is cut with the GPT-2 pattern (use_regex), and every byte becomes its byte-level character
//     (hf_byte_level.h).
struct PreTokenizerStep {
  enum class Kind { Metaspace, Split, ByteLevel };
  Kind kind = Kind::ByteLevel;
  hf::Metaspace metaspace;
  std::string pattern;
  SplitRegex::Syntax pattern_syntax = SplitRegex::Syntax::Regex;
  bool add_prefix_space = true;
  bool use_regex = true;
};

// One decoder of a "Sequence" (or the only one), applied to the list of token strings. ByteLevel turns the
// whole list into the text its bytes spell (hf_byte_level.h), ill-formed UTF-8 shown as U+FFFD.
struct DecoderStep {
  enum class Kind { Replace, ByteFallback, Fuse, Strip, Metaspace, ByteLevel };
  Kind kind = Kind::Fuse;
  std::string pattern;  // Replace: the literal string replaced
  std::string content;  // Replace: its replacement; Strip: the character stripped
  int start = 0;        // Strip: at most this many leading `content` characters removed from each token
  int stop = 0;         // Strip: likewise trailing
  hf::Metaspace metaspace;
};

// An entry of "added_tokens": matched as a whole string before the model sees the text (on the raw text,
// or on the normalized text when `normalized`).
struct AddedToken {
  int id = 0;
  std::string content;
  bool normalized = false;
  bool special = false;
};

struct TokenizerJson {
  // model (type "BPE")
  std::vector<std::pair<std::string, int>> vocab;           // piece -> id
  std::vector<std::pair<std::string, std::string>> merges;  // the merge rank is the position
  std::optional<std::string> unk_token;
  bool byte_fallback = false;
  bool fuse_unk = false;
  bool ignore_merges = false;  // a word that is a vocabulary piece as a whole is that one token, unmerged

  std::vector<AddedToken> added_tokens;
  std::vector<NormalizerStep> normalizer;           // applied in order; empty when there is none
  std::vector<PreTokenizerStep> pre_tokenizer;      // applied in order; none: each normalized piece is one word
  std::optional<std::vector<DecoderStep>> decoder;  // none: tokens are joined with spaces
};

// True when `bytes` starts (after whitespace) like a JSON object, which a SentencePiece model never does.
bool looksLikeJsonObject(std::string_view bytes);

// Parses and checks tokenizer.json text; `source` (the file) names it in every error. Throws MixerLabError
// for invalid JSON, a JSON object without a "model", and every unsupported component.
TokenizerJson parseTokenizerJson(std::string_view json_text, const std::string& source);

// What MixerLab supports, for error messages.
extern const char* const kSupportedTokenizerJson;

}  // namespace mixerlab::hf
