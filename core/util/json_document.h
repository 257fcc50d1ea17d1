// Parsing a JSON document a user wrote (a project file): errors name the file, the line and the
// column, and the things nlohmann-json accepts silently or reports without a place are refused with
// one: a key given twice in one object (the later one would win unseen), a number too large for a
// double (1e400) and nesting deeper than kMaxJsonDepth. Messages quote at most a few dozen
// characters of the text.
#pragma once
#include <filesystem>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace mixerlab {

// The deepest nesting of arrays and objects MixerLab accepts in JSON a user gives it. nlohmann-json
// parses any depth, but printing, copying and comparing a value recurse once per level: 100,000
// nested arrays in a project's description overflowed the stack (SIGSEGV in `mixerlab info`). Real
// project files, tokenizer.json files and corpus records nest fewer than 10 levels.
constexpr int kMaxJsonDepth = 256;

// Offset of the first '[' or '{' that opens a level deeper than kMaxJsonDepth, or std::string_view::npos.
// Scans the raw text (skipping strings), so it runs before a parser builds anything.
size_t jsonTooDeepAt(std::string_view text);

// Throws MixerLabError "<source>:<line>:<column>: JSON nested deeper than 256 levels ..." (with a fix)
// when `text` nests deeper. Call it before parsing.
void checkJsonDepth(std::string_view text, const std::string& source);
// The same for one record of a JSON Lines file, placed as "<where>: ... (column N)" (where = "file:line").
void checkJsonLineDepth(std::string_view line, const std::string& where);

// Throws MixerLabError "<path>:<line>:<column>: ..." with a fix.
nlohmann::json parseJsonDocument(const std::string& text, const std::filesystem::path& path);

// 1-based line and column of byte `offset` (0-based) of `text`, as "line:column".
std::string lineColumnAt(std::string_view text, size_t offset);

}  // namespace mixerlab
