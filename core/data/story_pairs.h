// (summary, story) pairs for retrieval (docs/retrieval.md): JSON Lines files with one {"summary": ..., "story":
// ...} object per line, and a built-in generator of synthetic children's stories whose one-sentence
// summary states exactly who, where, what and how it ended, so every summary has one true story.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace mixerlab {

struct StoryPair {
  std::string summary;
  std::string story;
};

// Throws MixerLabError naming the file and line for a missing file, malformed JSON or a line
// without string "summary" and "story" fields. Blank lines are skipped.
std::vector<StoryPair> readStoryPairs(const std::filesystem::path& path);
// Written to a temporary name and renamed into place.
void writeStoryPairs(const std::filesystem::path& path, const std::vector<StoryPair>& pairs);

// `count` distinct stories (no two share their plan: hero, companion, place, object, event and
// ending), the same for the same seed on every machine. Stories run 5-8 sentences.
std::vector<StoryPair> syntheticStoryPairs(size_t count, uint64_t seed);

}  // namespace mixerlab
