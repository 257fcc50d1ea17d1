// PCRE2 behind SplitRegex (see hf_split_regex.h): compile once, match with per-call match data, and walk the
// matches the way Oniguruma's iterator does.
#define PCRE2_CODE_UNIT_WIDTH 8
#include "core/data/hf_split_regex.h"

#include <pcre2.h>

#include "core/data/utf8.h"
#include "core/util/error.h"

namespace mixerlab::hf {
namespace {

// Oniguruma's \s: U+0009..U+000D, U+0085, and the separators (Zs, Zl, Zp).
constexpr const char* kOnigurumaSpaceMembers = "\\t-\\r\\x{85}\\p{Z}";

std::string pcre2Message(int code) {
  PCRE2_UCHAR buffer[256];
  const int length = pcre2_get_error_message(code, buffer, sizeof buffer);
  return length < 0 ? "PCRE2 error " + std::to_string(code) : std::string(reinterpret_cast<const char*>(buffer));
}

struct MatchDataDeleter {
  void operator()(pcre2_match_data* data) const { pcre2_match_data_free(data); }
};

}  // namespace

const char* const kGpt2SplitPattern = R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

std::string withOnigurumaWhitespace(std::string_view pattern) {
  std::string out;
  bool in_class = false;
  for (size_t pos = 0; pos < pattern.size(); ++pos) {
    const char c = pattern[pos];
    if (c == '\\' && pos + 1 < pattern.size()) {
      const char escaped = pattern[++pos];
      if (escaped == 'h' || escaped == 'H') return "";
      if (escaped == 'Q') {  // \Q...\E quotes its text literally
        const size_t end = pattern.find("\\E", pos + 1);
        const size_t stop = end == std::string_view::npos ? pattern.size() : end + 2;
        out.append(pattern.substr(pos - 1, stop - (pos - 1)));
        pos = stop - 1;
      } else if (escaped == 's') {
        out += in_class ? std::string(kOnigurumaSpaceMembers) : "[" + std::string(kOnigurumaSpaceMembers) + "]";
      } else if (escaped == 'S' && !in_class) {
        out += "[^" + std::string(kOnigurumaSpaceMembers) + "]";
      } else {
        out += c;
        out += escaped;
      }
      continue;
    }
    out += c;
    if (!in_class && c == '[') {
      in_class = true;
      // A ']' first in the class (after an optional '^') is a member, not the end.
      if (pos + 1 < pattern.size() && pattern[pos + 1] == '^') out += pattern[++pos];
      if (pos + 1 < pattern.size() && pattern[pos + 1] == ']') out += pattern[++pos];
    } else if (in_class && c == '[' && pos + 1 < pattern.size() && pattern[pos + 1] == ':') {
      const size_t end = pattern.find(":]", pos + 2);  // a POSIX class such as [:alpha:]
      if (end != std::string_view::npos) {
        out.append(pattern.substr(pos + 1, end + 2 - (pos + 1)));
        pos = end + 1;
      }
    } else if (in_class && c == ']') {
      in_class = false;
    }
  }
  return out;
}

SplitRegex::SplitRegex(const std::string& pattern, Syntax syntax, const std::string& where) : where_(where) {
  std::string source = pattern;
  uint32_t options = PCRE2_UTF | PCRE2_MATCH_INVALID_UTF;
  if (syntax == Syntax::Literal) {
    options |= PCRE2_LITERAL;
  } else {
    source = withOnigurumaWhitespace(pattern);
    if (source.empty() && !pattern.empty()) {
      throw MixerLabError(where + ": the pattern " + pattern +
                              " uses \\h or \\H, which Hugging Face tokenizers "
                              "(Oniguruma: a hex digit) and MixerLab (PCRE2: horizontal space) read differently",
                          "write the characters meant, e.g. [0-9a-fA-F] for a hex digit");
    }
    options |= PCRE2_UCP | PCRE2_MULTILINE;
  }
  int error = 0;
  PCRE2_SIZE error_offset = 0;
  pcre2_code* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(source.data()), source.size(), options, &error,
                                   &error_offset, nullptr);
  if (code == nullptr) {
    throw MixerLabError(where + ": the pattern " + pattern + " does not compile (" + pcre2Message(error) +
                            " at offset " + std::to_string(error_offset) + ")",
                        "use a tokenizer.json whose Split pattern is a valid regular expression");
  }
  pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);  // when JIT is unavailable, pcre2_match interprets
  code_.reset(code, pcre2_code_free);
}

std::vector<std::string_view> SplitRegex::isolate(std::string_view text) const {
  std::vector<std::string_view> pieces;
  std::unique_ptr<pcre2_match_data, MatchDataDeleter> match(pcre2_match_data_create_from_pattern(code_.get(), nullptr));
  if (!match) throw std::bad_alloc();
  const auto subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  size_t piece_start = 0;       // where the next piece (a gap or a match) starts
  size_t search_from = 0;       // where the next search starts
  bool matched_before = false;  // whether a match ended at piece_start
  while (search_from <= text.size()) {
    int found = pcre2_match(code_.get(), subject, text.size(), search_from, 0, match.get(), nullptr);
    if (found == PCRE2_ERROR_JIT_STACKLIMIT) {  // a pattern deeper than JIT's default stack: interpret instead
      found = pcre2_match(code_.get(), subject, text.size(), search_from, PCRE2_NO_JIT, match.get(), nullptr);
    }
    if (found == PCRE2_ERROR_NOMATCH) break;
    if (found < 0) {
      throw MixerLabError(where_ + ": matching the pattern failed (" + pcre2Message(found) + ") on a text of " +
                              std::to_string(text.size()) + " bytes",
                          "report this text and tokenizer.json");
    }
    const PCRE2_SIZE* range = pcre2_get_ovector_pointer(match.get());
    const size_t start = range[0], end = range[1];
    if (start == end && matched_before && end == piece_start) {
      // An empty match right where the last one ended: move on one character and search again.
      if (search_from >= text.size()) break;
      search_from += utf8::codePointLength(text, search_from);
      continue;
    }
    if (start > piece_start) pieces.push_back(text.substr(piece_start, start - piece_start));
    if (end > start) pieces.push_back(text.substr(start, end - start));
    piece_start = end;
    search_from = end;
    matched_before = true;
  }
  if (piece_start < text.size()) pieces.push_back(text.substr(piece_start));
  return pieces;
}

}  // namespace mixerlab::hf
