// Opening-sentence pairs of a plain story corpus (see text_story_pairs.h).
#include "core/data/text_story_pairs.h"

#include "core/data/corpus_sources.h"
#include "core/data/document_stream.h"
#include "core/util/error.h"

namespace mixerlab {

namespace {
bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

std::string trimmed(const std::string& s) {
  size_t begin = 0, end = s.size();
  while (begin < end && isSpace(s[begin])) ++begin;
  while (end > begin && isSpace(s[end - 1])) --end;
  return s.substr(begin, end - begin);
}

bool closesSentence(char c) { return c == '"' || c == '\'' || c == ')' || c == ']'; }

// Where the first sentence of `text` (already trimmed) ends: one past its last byte.
size_t openingEnd(const std::string& text) {
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n' || c == '\r') return i;
    if (c != '.' && c != '!' && c != '?') continue;
    size_t end = i + 1;
    while (end < text.size() && (closesSentence(text[end]) || text[end] == '.' || text[end] == '!' || text[end] == '?'))
      ++end;
    if (end == text.size() || isSpace(text[end])) return end;
    i = end - 1;
  }
  return text.size();
}

// At most kMaxOpeningBytes, cut at the last space before the limit (never inside a UTF-8 character).
std::string capped(const std::string& opening) {
  if (opening.size() <= kMaxOpeningBytes) return opening;
  size_t cut = opening.rfind(' ', kMaxOpeningBytes);
  if (cut == std::string::npos || cut == 0) {
    cut = kMaxOpeningBytes;
    while (cut > 0 && (static_cast<unsigned char>(opening[cut]) & 0xC0) == 0x80) --cut;  // a continuation byte
  }
  return trimmed(opening.substr(0, cut));
}
}  // namespace

std::optional<StoryPair> openingSentencePair(const std::string& story) {
  StoryPair pair;
  pair.story = trimmed(story);
  const size_t end = openingEnd(pair.story);
  if (trimmed(pair.story.substr(end)).empty()) return std::nullopt;
  pair.summary = capped(trimmed(pair.story.substr(0, end)));
  if (pair.summary.empty()) return std::nullopt;
  return pair;
}

std::vector<StoryPair> readOpeningSentencePairs(const std::vector<std::string>& inputs, CorpusFormat format,
                                                const std::string& json_field, int64_t max_stories) {
  if (max_stories < 2)
    throw MixerLabError("a story corpus for retrieval needs at least 2 stories, got a limit of " +
                        std::to_string(max_stories));
  std::vector<StoryPair> pairs;
  int64_t skipped = 0;
  std::string document;
  for (const SourceFile& file : expandCorpusSources(inputs, format)) {
    DocumentStream stream(file, json_field);
    while (static_cast<int64_t>(pairs.size()) < max_stories && stream.next(document)) {
      if (auto pair = openingSentencePair(document)) {
        pairs.push_back(std::move(*pair));
      } else {
        ++skipped;
      }
    }
    if (static_cast<int64_t>(pairs.size()) >= max_stories) break;
  }
  if (pairs.size() < 2) {
    std::string names;
    for (const std::string& input : inputs) names += (names.empty() ? "" : ", ") + input;
    throw MixerLabError(names + ": " + std::to_string(pairs.size()) + " usable stories (" + std::to_string(skipped) +
                        " had a single sentence); retrieval needs at least 2 stories of two or more sentences");
  }
  return pairs;
}

}  // namespace mixerlab
