// The pre-tokenizer of a Hugging Face tokenizer.json (see hf_tokenizer_json.h): cuts one stretch of normalized
// text (between added tokens) into the words the BPE model encodes one at a time, by running the file's steps
// in order, each on every piece the step before it left:
//   Metaspace  spaces become the replacement character ("▁"), which is put in front of the piece (always, or
//              with prepend_scheme "first" only for the piece that starts the whole input) and, with split,
//              starts a new piece;
//   Split      the pattern's matches and the stretches between them become pieces (hf_split_regex.h);
//   ByteLevel  a space in front of a piece that does not start with one (add_prefix_space: of every piece it
//              gets, also after a Split), the GPT-2 pattern's pieces (use_regex), then every byte as its
//              byte-level character (hf_byte_level.h), so the model sees only the 256 byte characters.
// Empty pieces are dropped. Without steps the whole stretch is one word. Patterns are compiled once, when the
// tokenizer loads; words() only reads, so it may run on many threads at once.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/data/hf_split_regex.h"
#include "core/data/hf_tokenizer_json.h"

namespace mixerlab {

class HfPreTokenizer {
 public:
  // Throws MixerLabError naming `source` when a Split pattern does not compile.
  HfPreTokenizer(const std::vector<hf::PreTokenizerStep>& steps, const std::string& source);

  // The words of `text`; `at_input_start`: the text starts the whole input (for prepend_scheme "first").
  std::vector<std::string> words(std::string_view text, bool at_input_start) const;

 private:
  struct CompiledStep {
    hf::PreTokenizerStep step;
    std::optional<hf::SplitRegex> regex;  // Split's pattern, or GPT-2's for ByteLevel with use_regex
  };
  std::vector<CompiledStep> steps_;
};

}  // namespace mixerlab
