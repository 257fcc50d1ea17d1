// Reading and writing (summary, story) JSON Lines (see story_pairs.h).
#include "core/data/story_pairs.h"

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/json_document.h"

namespace mixerlab {

std::vector<StoryPair> readStoryPairs(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in)
    throw MixerLabError("cannot open story pairs " + path.string(),
                        "check the path (JSON Lines: {\"summary\", \"story\"})");
  std::vector<StoryPair> pairs;
  std::string line;
  for (int64_t number = 1; std::getline(in, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = path.string() + ":" + std::to_string(number);
    checkJsonLineDepth(line, where);
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(line);
    } catch (const nlohmann::json::exception& e) {
      throw MixerLabError(where + ": not JSON (" + std::string(e.what()) + ")", "write one JSON object per line");
    }
    if (!j.is_object() || !j.contains("summary") || !j.contains("story") || !j["summary"].is_string() ||
        !j["story"].is_string()) {
      throw MixerLabError(where + ": expected {\"summary\": string, \"story\": string}");
    }
    pairs.push_back({j["summary"].get<std::string>(), j["story"].get<std::string>()});
  }
  if (pairs.empty()) throw MixerLabError(path.string() + " holds no story pairs");
  return pairs;
}

void writeStoryPairs(const std::filesystem::path& path, const std::vector<StoryPair>& pairs) {
  std::ostringstream out;
  for (const auto& p : pairs) out << nlohmann::json{{"summary", p.summary}, {"story", p.story}}.dump() << "\n";
  writeFileAtomic(path, out.str());
}

}  // namespace mixerlab
