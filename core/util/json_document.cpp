// JSON documents with placed errors (see json_document.h).
#include "core/util/json_document.h"

#include <map>
#include <set>
#include <vector>

#include "core/util/error.h"
#include "core/util/text.h"

namespace mixerlab {
namespace {

// Where `needle` occurs for the `nth` time (0-based) in `text`, else the end.
size_t nthOccurrence(const std::string& text, const std::string& needle, int nth) {
  size_t at = text.find(needle);
  for (int i = 0; i < nth && at != std::string::npos; ++i) at = text.find(needle, at + 1);
  return at == std::string::npos ? text.size() : at;
}

struct DuplicateKey {
  std::string key;
  int earlier = 0;  // how many times the quoted key occurs before the duplicate, for its place
};

}  // namespace

std::string lineColumnAt(std::string_view text, size_t offset) {
  size_t line = 1, column = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return std::to_string(line) + ":" + std::to_string(column);
}

size_t jsonTooDeepAt(std::string_view text) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;  // an escaped character, a quote included
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth) return i;
    } else if (c == ']' || c == '}') {
      --depth;  // unbalanced text is the parser's to report
    }
  }
  return std::string_view::npos;
}

namespace {
// nlohmann's "[json.exception.parse_error.101] parse error at line 3, column 18: syntax error while
// parsing object key - unexpected ','; ..." without its exception id and position (the caller names
// the position in the user's terms).
std::string plainParseError(const std::string& what) {
  std::string reason = what;
  if (const size_t id_end = reason.find("] ");
      reason.rfind("[json.exception.", 0) == 0 && id_end != std::string::npos) {
    reason = reason.substr(id_end + 2);
  }
  if (reason.rfind("parse error", 0) == 0) {
    if (const size_t colon = reason.find(": "); colon != std::string::npos) reason = reason.substr(colon + 2);
  }
  return reason;
}

const std::string kTooDeep =
    "JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels of arrays and objects";
const char* const kTooDeepFix = "flatten the value there (MixerLab's files nest a few levels)";
}  // namespace

void checkJsonDepth(std::string_view text, const std::string& source) {
  if (const size_t at = jsonTooDeepAt(text); at != std::string_view::npos) {
    throw MixerLabError(source + ":" + lineColumnAt(text, at) + ": " + kTooDeep, kTooDeepFix);
  }
}

void checkJsonLineDepth(std::string_view line, const std::string& where) {
  if (const size_t at = jsonTooDeepAt(line); at != std::string_view::npos) {
    throw MixerLabError(where + ": " + kTooDeep + " (column " + std::to_string(at + 1) + ")", kTooDeepFix);
  }
}

nlohmann::json parseJsonDocument(const std::string& text, const std::filesystem::path& path) {
  checkJsonDepth(text, path.string());
  std::vector<std::set<std::string>> open_objects;
  std::vector<DuplicateKey> duplicates;
  std::map<std::string, int> key_count;  // every key seen so far, for the duplicate's place
  const auto callback = [&](int, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using Event = nlohmann::json::parse_event_t;
    if (event == Event::object_start) open_objects.emplace_back();
    if (event == Event::object_end && !open_objects.empty()) open_objects.pop_back();
    if (event == Event::key && !open_objects.empty()) {
      const std::string key = parsed.get<std::string>();
      const int seen = key_count[key]++;
      if (!open_objects.back().insert(key).second) duplicates.push_back({key, seen});
    }
    return true;
  };
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(text, callback);
  } catch (const nlohmann::json::parse_error& e) {
    const std::string at = lineColumnAt(text, e.byte > 0 ? e.byte - 1 : 0);  // "line:column"
    const size_t colon = at.find(':');
    throw MixerLabError(
        path.string() + ":" + at + " (line " + at.substr(0, colon) + ", column " + at.substr(colon + 1) +
            "): malformed JSON: " +
            abbreviated(plainParseError(e.what()), 200),  // nlohmann quotes the last token read, which can be long
        "fix the JSON syntax at that position (trailing commas and comments are not allowed)");
  } catch (const nlohmann::json::out_of_range& e) {
    // "number overflow parsing '1e400'": nlohmann gives no position, so find the number.
    const std::string message = e.what();
    const size_t open = message.find('\''), close = message.rfind('\'');
    const std::string number =
        open != std::string::npos && close > open ? message.substr(open + 1, close - open - 1) : "";
    const size_t at = number.empty() ? text.size() : text.find(number);
    throw MixerLabError(
        path.string() + (at < text.size() ? ":" + lineColumnAt(text, at) : std::string()) + ": number " +
            (number.empty() ? abbreviated(message, 200) : abbreviated(number) + " is too large for a double"),
        "write a smaller number");
  }
  if (!duplicates.empty()) {
    const DuplicateKey& d = duplicates.front();
    const size_t at = nthOccurrence(text, "\"" + d.key + "\"", d.earlier);
    throw MixerLabError(path.string() + ":" + lineColumnAt(text, at) + ": key \"" + abbreviated(d.key) +
                            "\" appears twice in the same object; the later value would silently win",
                        "keep one of them");
  }
  return document;
}

}  // namespace mixerlab
