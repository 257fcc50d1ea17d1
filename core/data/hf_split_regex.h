// A regular expression that cuts text into pieces for a tokenizer.json pre-tokenizer: a Split's pattern,
// or the GPT-2 pattern of ByteLevel. Compiled once with PCRE2 (8-bit code units, UTF-8 with Unicode
// properties for \s, \d, \w; invalid UTF-8 in the text never matches but is kept) and then shared by every
// thread: isolate() allocates its own match data, so it may run on many threads at once.
//
// Hugging Face tokenizers runs these patterns with Oniguruma. The two engines read the GPT-2 and Llama-3
// patterns alike (leftmost match, alternatives in order, greedy repeats, lookahead, (?i:...) with Unicode
// case folding, \p{L} and \p{N}) except for one code point: PCRE2's \s also matches U+180E MONGOLIAN VOWEL
// SEPARATOR, Oniguruma's (Unicode White_Space) does not. So \s (and \S outside a character class) is given
// to PCRE2 spelled out as Oniguruma means it. Oniguruma's \h (a hex digit; PCRE2's horizontal space) is
// refused rather than read differently; other syntax only one engine knows is read as PCRE2 reads it, and
// ^ and $ match at line ends as in Oniguruma's default (Ruby) syntax.
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <vector>

struct pcre2_real_code_8;

namespace mixerlab::hf {

class SplitRegex {
 public:
  enum class Syntax { Regex, Literal };  // a Split pattern {"Regex": ...} or {"String": ...}

  // Throws MixerLabError naming `where` (the file and the component) when the pattern does not compile.
  SplitRegex(const std::string& pattern, Syntax syntax, const std::string& where);

  // The pattern's matches in `text`, left to right, and the non-empty stretches between them, in order:
  // together exactly `text`. An empty match is left out, and one that would start where the previous match
  // ended is skipped by moving on one character, as Oniguruma's match iterator does.
  std::vector<std::string_view> isolate(std::string_view text) const;

 private:
  std::shared_ptr<pcre2_real_code_8> code_;
  std::string where_;
};

// The pattern ByteLevel splits with when use_regex is on (GPT-2's).
extern const char* const kGpt2SplitPattern;

// `pattern` with \s, and \S outside character classes, spelled out as Oniguruma's whitespace set
// (U+0009..U+000D, U+0085 and the Unicode separators \p{Z}); an empty string for a pattern that uses \h
// or \H. Exposed for the tests.
std::string withOnigurumaWhitespace(std::string_view pattern);

}  // namespace mixerlab::hf
