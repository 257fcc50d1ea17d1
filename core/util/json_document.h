// Parsing a JSON document a user wrote (a project file): errors name the file, the line and the
// column, and the things nlohmann-json accepts silently or reports without a place are refused with
// one: a key given twice in one object (the later one would win unseen) and a number too large for
// a double (1e400).
#pragma once
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

namespace mixerlab {

// Throws MixerLabError "<path>:<line>:<column>: ..." with a fix.
nlohmann::json parseJsonDocument(const std::string& text, const std::filesystem::path& path);

// 1-based line and column of byte `offset` (0-based) of `text`, as "line:column".
std::string lineColumnAt(const std::string& text, size_t offset);

}  // namespace mixerlab
