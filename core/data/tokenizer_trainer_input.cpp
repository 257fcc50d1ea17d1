// Replaying SentencePiece's preprocessing to find the words its trainer cannot take (see
// tokenizer_trainer_input.h; the steps follow trainer_interface.cc LoadSentences and
// SplitSentencesByWhitespace, normalizer.cc Normalize with the identity rule).
#include "core/data/tokenizer_trainer_input.h"

#include <algorithm>
#include <cmath>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "core/data/tokenizer.h"
#include "core/data/utf8.h"
#include "core/util/error.h"
#include "core/util/text.h"

namespace mixerlab {
namespace {

constexpr char32_t kSpaceSymbol = 0x2581;      // "▁": the trainer's space, also put before every sentence
constexpr char32_t kBoundaryChar = U'\t';      // what "\n" and the meta pieces become; never a vocabulary char
constexpr char32_t kReplacementChar = 0xFFFD;  // the normaliser's stand-in for a byte that is not UTF-8
constexpr std::string_view kUnknownCharUtf8 = "\xE2\x96\x85";  // "▅": sentences holding it are skipped

bool isUpperHexDigit(char c) { return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'F'); }

// Bytes of the meta piece (<unk>, <s>, </s>, <pad>, "\n", and <0xHH> with byte fallback) at text[pos]; 0 if none.
size_t metaPieceLength(std::string_view text, size_t pos, bool byte_fallback) {
  if (text[pos] == '\n') return 1;
  if (text[pos] != '<') return 0;
  const std::string_view rest = text.substr(pos);
  for (const std::string_view piece : {"<unk>", "<s>", "</s>", "<pad>"}) {
    if (startsWith(rest, piece)) return piece.size();
  }
  if (byte_fallback && rest.size() >= 6 && startsWith(rest, "<0x") && isUpperHexDigit(rest[3]) &&
      isUpperHexDigit(rest[4]) && rest[5] == '>') {
    return 6;
  }
  return 0;
}

// Whether the trainer keeps the sentence at all (it skips empty, over-long and "▅" ones).
bool trainerKeeps(const std::string& document) {
  return !document.empty() && static_cast<int64_t>(document.size()) <= kTrainerMaxSentenceBytes &&
         document.find(kUnknownCharUtf8) == std::string::npos;
}

// Calls fn(code_point, byte_offset) for each character of the sentence the trainer makes of `document`:
// a leading "▁", spaces as "▁", "\n" and meta pieces as one boundary char, bad bytes as U+FFFD.
template <typename Fn>
void forEachTrainerChar(std::string_view document, bool byte_fallback, Fn fn) {
  fn(kSpaceSymbol, size_t{0});
  for (size_t pos = 0; pos < document.size();) {
    if (const size_t meta = metaPieceLength(document, pos, byte_fallback)) {
      fn(kBoundaryChar, pos);
      pos += meta;
      continue;
    }
    if (document[pos] == ' ') {
      fn(kSpaceSymbol, pos);
      ++pos;
      continue;
    }
    const size_t length = utf8::codePointLength(document, pos);
    const bool malformed = length == 1 && static_cast<unsigned char>(document[pos]) >= 0x80;
    fn(malformed ? kReplacementChar : utf8::codePointAt(document, pos, length), pos);
    pos += length;
  }
}

// How often each character occurs in the kept sentences (the trainer's chars_count).
class CharCounts {
 public:
  void add(char32_t c) {
    ++total_;
    if (c < kDirect) {
      ++direct_[c];
    } else {
      ++other_[c];
    }
  }
  int64_t total() const { return total_; }
  // (character, count), most frequent first, ties by code point: the trainer's Sorted() order.
  std::vector<std::pair<char32_t, int64_t>> sorted() const {
    std::vector<std::pair<char32_t, int64_t>> out(other_.begin(), other_.end());
    for (char32_t c = 0; c < kDirect; ++c) {
      if (direct_[c] > 0) out.emplace_back(c, direct_[c]);
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
      return a.second > b.second || (a.second == b.second && a.first < b.first);
    });
    return out;
  }

 private:
  static constexpr char32_t kDirect = 0x10000;  // the Basic Multilingual Plane is counted in an array
  std::vector<int64_t> direct_ = std::vector<int64_t>(kDirect, 0);
  std::unordered_map<char32_t, int64_t> other_;
  int64_t total_ = 0;
};

// The characters the trainer keeps: the most frequent until they cover character_coverage of the text
// (compared in float, as the trainer does); every other character becomes its unknown symbol.
std::unordered_set<char32_t> requiredCharacters(const CharCounts& counts, double character_coverage) {
  std::unordered_set<char32_t> required;
  int64_t accumulated = 0;
  for (const auto& [c, count] : counts.sorted()) {
    const float coverage = static_cast<float>(1.0 * static_cast<double>(accumulated) / counts.total());
    if (coverage >= static_cast<float>(character_coverage)) break;
    accumulated += count;
    if (c != kBoundaryChar) required.insert(c);
  }
  return required;
}

// The first characters of document from byte `offset`, cut at a character boundary.
std::string excerpt(const std::string& document, size_t offset) {
  constexpr size_t kShownCharacters = 24;
  size_t end = offset;
  for (size_t k = 0; k < kShownCharacters && end < document.size(); ++k) end += utf8::codePointLength(document, end);
  std::string shown = document.substr(offset, end - offset);
  for (char& c : shown) c = c == '\n' || c == '\t' ? ' ' : c;
  return end < document.size() ? shown + "..." : shown;
}

}  // namespace

TrainerWord longestTrainerWord(const std::vector<std::string>& documents, const std::vector<size_t>& picked,
                               const TokenizerSettings& settings) {
  // A word has at most as many characters as its document has bytes: most corpora stop here.
  const bool any_long = std::any_of(picked.begin(), picked.end(), [&](size_t k) {
    return trainerKeeps(documents[k]) && static_cast<int64_t>(documents[k].size()) > kMaxTrainerWordCharacters;
  });
  if (!any_long) return {};

  CharCounts counts;
  for (size_t k : picked) {
    if (!trainerKeeps(documents[k])) continue;
    forEachTrainerChar(documents[k], settings.byte_fallback, [&](char32_t c, size_t) {
      if (c != 0) counts.add(c);  // the trainer does not count NUL
    });
  }
  const std::unordered_set<char32_t> required = requiredCharacters(counts, settings.character_coverage);
  const bool spaces_split = required.count(kSpaceSymbol) > 0;

  TrainerWord longest;
  for (const auto& [c, count] : counts.sorted()) {
    longest.distinct_characters += c != kSpaceSymbol && c != kBoundaryChar ? 1 : 0;
  }
  for (size_t k : picked) {
    const std::string& document = documents[k];
    if (!trainerKeeps(document) || static_cast<int64_t>(document.size()) <= kMaxTrainerWordCharacters) continue;
    int64_t symbols = 0;  // of the current word, its leading "▁" included
    size_t word_offset = 0;
    bool word_has_spaces = false;
    const auto close_word = [&] {
      if (symbols - 1 > longest.characters) {
        longest.document = k;
        longest.characters = symbols - 1;
        longest.start = excerpt(document, word_offset);
        longest.spaces_dropped = word_has_spaces;
      }
    };
    forEachTrainerChar(document, settings.byte_fallback, [&](char32_t c, size_t offset) {
      if (c == kSpaceSymbol && symbols > 0) {
        if (spaces_split) {
          close_word();
          symbols = 0;
          word_offset = offset + 1;  // after the space
          word_has_spaces = false;
        } else {
          word_has_spaces = true;  // a rare character by now, replaced by the unknown symbol: no break
        }
      }
      ++symbols;
    });
    close_word();
  }
  if (longest.characters <= kMaxTrainerWordCharacters) longest.characters = 0;
  return longest;
}

void checkTrainerInput(const std::vector<std::string>& documents, const std::vector<size_t>& picked,
                       const TokenizerSettings& settings, const std::string& corpus_name) {
  const TrainerWord word = longestTrainerWord(documents, picked, settings);
  if (word.characters == 0) return;
  const std::string limit = std::to_string(kMaxTrainerWordCharacters);
  std::string problem = "cannot train a tokenizer on " + (corpus_name.empty() ? "the corpus" : corpus_name) +
                        ": document " + std::to_string(word.document + 1) + " has a run of " +
                        std::to_string(word.characters) + " characters ";
  if (word.spaces_dropped) {
    const double rare = settings.character_coverage < 1.0 ? 1.0 / (1.0 - settings.character_coverage) : 0.0;
    problem += "that SentencePiece takes as one word (\"" + word.start +
               "\"): spaces are so rare in this corpus (fewer than 1 in " + std::to_string(std::llround(rare)) +
               " characters) that it drops them";
  } else {
    problem += "without a space (\"" + word.start + "\")";
  }
  problem += "; SentencePiece's trainer crashes on runs longer than " + limit + " characters";
  std::string fix = "split the text into documents of at most " + limit +
                    " characters (separate them with a blank line or <|endoftext|> and set the corpus format to "
                    "match), or use a corpus of ordinary text with spaces between words";
  constexpr int kFewCharacters = 10;
  if (word.distinct_characters <= kFewCharacters) {
    fix += "; this corpus uses only " + std::to_string(word.distinct_characters) + " distinct character" +
           (word.distinct_characters == 1 ? "" : "s") + ", too few for a vocabulary of " +
           std::to_string(settings.vocab_size) + ": use a larger, more varied corpus or lower the vocab_size";
  }
  throw MixerLabError(problem, fix);
}

}  // namespace mixerlab
