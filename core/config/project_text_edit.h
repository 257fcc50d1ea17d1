// Edits of project.json that keep the file as the user wrote it: only the text of the run that is
// added, replaced or removed (or of the settings edited) changes; every other byte (key order, indentation, number
// spelling, the other runs) stays. The file is scanned for the top-level "runs" array and the byte span of each element
// (strings and escapes respected); a new or replaced run is written in the file's own indentation, with a replaced run
// keeping its old key order. Plain std types, no Qt.
#pragma once
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace mixerlab {

// The new file text, or nullopt when the text has no top-level "runs" array this can splice
// (the caller then writes the whole document in MixerLab's format).
std::optional<std::string> spliceAddRun(const std::string& text, const nlohmann::ordered_json& run);
std::optional<std::string> spliceReplaceRun(const std::string& text, size_t index, const nlohmann::ordered_json& run);
std::optional<std::string> spliceRemoveRun(const std::string& text, size_t index);
// The whole document replaced by `document` (the project settings edited, say), member by member:
// what did not change (the runs) keeps its bytes. nullopt when the text is no JSON object.
std::optional<std::string> spliceReplaceDocument(const std::string& text, const nlohmann::ordered_json& document);

// `updated` with the keys in `original`'s order where both have them (recursively, and element by
// element in arrays), new keys after.
nlohmann::ordered_json keepKeyOrder(const nlohmann::ordered_json& original, const nlohmann::ordered_json& updated);

}  // namespace mixerlab
