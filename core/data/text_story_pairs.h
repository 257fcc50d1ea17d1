// Retrieval pairs from a plain corpus of stories (the project's own text, JSON Lines or
// <|endoftext|> files) that has no summaries: each story is paired with its own opening sentence,
// which stands in for the summary. A held-out pair then asks "which story opens like this?", and a
// typed query or a pasted story ranks the corpus's stories as with summary pairs (docs/retrieval.md).
// The corpus is streamed and only the first max_stories usable stories are kept, so memory is bounded
// by that setting, not by the corpus.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/data/corpus_reader.h"
#include "core/data/story_pairs.h"

namespace mixerlab {

// The longest opening kept as a query; a longer first sentence is cut at a space before it.
inline constexpr size_t kMaxOpeningBytes = 300;

// The story's opening sentence and the whole story (both trimmed of surrounding whitespace). A sentence
// ends at '.', '!' or '?' (with any closing quotes or brackets after it) followed by whitespace, or at
// a line break. nullopt for a story with nothing after its opening sentence: its only query would be
// the story itself.
std::optional<StoryPair> openingSentencePair(const std::string& story);

// The first max_stories stories of the corpus inputs (files, folders or glob patterns, read as
// expandCorpusSources and DocumentStream do, JSON Lines documents from json_field) that
// openingSentencePair accepts, in corpus order. Throws MixerLabError naming the input for a missing
// or unreadable source, and when fewer than 2 stories are usable.
std::vector<StoryPair> readOpeningSentencePairs(const std::vector<std::string>& inputs, CorpusFormat format,
                                                const std::string& json_field, int64_t max_stories);

}  // namespace mixerlab
