// Byte-preserving edits of a project file's runs array (see project_text_edit.h).
#include "core/config/project_text_edit.h"

#include <vector>

#include "core/util/json_document.h"

namespace mixerlab {

namespace {
struct Span {
  size_t begin = 0, end = 0;  // [begin, end) of one element's text
};

struct RunsArray {
  size_t open = 0, close = 0;  // positions of '[' and ']'
  std::vector<Span> elements;
};

// Skips a string starting at text[i] == '"'; returns the index after its closing quote.
size_t skipString(const std::string& text, size_t i) {
  for (++i; i < text.size(); ++i) {
    if (text[i] == '\\') {
      ++i;
    } else if (text[i] == '"') {
      return i + 1;
    }
  }
  return text.size();
}

// Skips one JSON value starting at i (after whitespace); returns the index after it.
size_t skipValue(const std::string& text, size_t i) {
  if (i >= text.size()) return i;
  if (text[i] == '"') return skipString(text, i);
  if (text[i] == '{' || text[i] == '[') {
    int depth = 0;
    for (; i < text.size(); ++i) {
      const char c = text[i];
      if (c == '"') {
        i = skipString(text, i) - 1;
      } else if (c == '{' || c == '[') {
        ++depth;
      } else if (c == '}' || c == ']') {
        if (--depth == 0) return i + 1;
      }
    }
    return text.size();
  }
  while (i < text.size() && text[i] != ',' && text[i] != '}' && text[i] != ']' &&
         !std::isspace(static_cast<unsigned char>(text[i])))
    ++i;
  return i;
}

size_t skipSpace(const std::string& text, size_t i) {
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  return i;
}

std::optional<RunsArray> findRuns(const std::string& text) {
  size_t i = skipSpace(text, 0);
  if (i >= text.size() || text[i] != '{') return std::nullopt;
  ++i;
  while (true) {  // the top-level object's members
    i = skipSpace(text, i);
    if (i >= text.size() || text[i] != '"') return std::nullopt;
    const size_t key_end = skipString(text, i);
    const std::string key = text.substr(i + 1, key_end - i - 2);
    i = skipSpace(text, key_end);
    if (i >= text.size() || text[i] != ':') return std::nullopt;
    i = skipSpace(text, i + 1);
    if (key == "runs") {
      if (text[i] != '[') return std::nullopt;
      RunsArray runs;
      runs.open = i;
      size_t j = skipSpace(text, i + 1);
      while (j < text.size() && text[j] != ']') {
        const size_t end = skipValue(text, j);
        runs.elements.push_back({j, end});
        j = skipSpace(text, end);
        if (j < text.size() && text[j] == ',') j = skipSpace(text, j + 1);
      }
      if (j >= text.size()) return std::nullopt;
      runs.close = j;
      return runs;
    }
    i = skipSpace(text, skipValue(text, i));
    if (i >= text.size() || text[i] != ',') return std::nullopt;
    ++i;
  }
}

// The whitespace before position `pos` on its line (the element's indentation).
std::string lineIndent(const std::string& text, size_t pos) {
  const size_t line_start = text.rfind('\n', pos == 0 ? 0 : pos - 1);
  const size_t from = line_start == std::string::npos ? 0 : line_start + 1;
  std::string indent;
  for (size_t k = from; k < pos && (text[k] == ' ' || text[k] == '\t'); ++k) indent += text[k];
  return indent;
}

// One indentation step of the file (the first indented line's leading spaces), 2 when unknown.
int indentStep(const std::string& text) {
  const size_t newline = text.find('\n');
  if (newline == std::string::npos) return 2;
  size_t k = newline + 1;
  int n = 0;
  while (k < text.size() && text[k] == ' ') ++k, ++n;
  return n > 0 ? n : 2;
}

// `run` dumped with the file's indentation step, every line after the first prefixed by `indent`.
std::string runText(const nlohmann::ordered_json& run, int step, const std::string& indent) {
  const std::string dumped = run.dump(step);
  std::string out;
  for (const char c : dumped) {
    out += c;
    if (c == '\n') out += indent;
  }
  return out;
}
}  // namespace

nlohmann::ordered_json keepKeyOrder(const nlohmann::ordered_json& original, const nlohmann::ordered_json& updated) {
  if (!original.is_object() || !updated.is_object()) return updated;
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const auto& [key, value] : original.items()) {
    if (updated.contains(key)) out[key] = keepKeyOrder(value, updated.at(key));
  }
  for (const auto& [key, value] : updated.items()) {
    if (!out.contains(key)) out[key] = value;
  }
  return out;
}

std::optional<std::string> spliceAddRun(const std::string& text, const nlohmann::ordered_json& run) {
  const auto runs = findRuns(text);
  if (!runs) return std::nullopt;
  const int step = indentStep(text);
  if (runs->elements.empty()) {
    const std::string outer = lineIndent(text, runs->open);
    const std::string inner = outer + std::string(step, ' ');
    return text.substr(0, runs->open + 1) + "\n" + inner + runText(run, step, inner) + "\n" + outer +
           text.substr(runs->close);
  }
  const Span last = runs->elements.back();
  const std::string indent = lineIndent(text, last.begin);
  const bool one_line = text.find('\n', runs->open) > runs->close;  // "runs": [{...}] on one line
  const std::string separator = one_line ? ", " : ",\n" + indent;
  return text.substr(0, last.end) + separator + runText(run, one_line ? -1 : step, indent) + text.substr(last.end);
}

std::optional<std::string> spliceReplaceRun(const std::string& text, size_t index, const nlohmann::ordered_json& run) {
  const auto runs = findRuns(text);
  if (!runs || index >= runs->elements.size()) return std::nullopt;
  const Span span = runs->elements[index];
  const std::string element = text.substr(span.begin, span.end - span.begin);
  if (jsonTooDeepAt(element) != std::string::npos) return std::nullopt;  // walking it would overflow the stack
  nlohmann::ordered_json old;
  try {
    old = nlohmann::ordered_json::parse(element);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  const bool one_line = text.find('\n', span.begin) > span.end;
  const std::string indent = lineIndent(text, span.begin);
  return text.substr(0, span.begin) + runText(keepKeyOrder(old, run), one_line ? -1 : indentStep(text), indent) +
         text.substr(span.end);
}

std::optional<std::string> spliceRemoveRun(const std::string& text, size_t index) {
  const auto runs = findRuns(text);
  if (!runs || index >= runs->elements.size()) return std::nullopt;
  const auto& e = runs->elements;
  if (e.size() == 1) return text.substr(0, runs->open + 1) + text.substr(runs->close);
  // Remove the element with the separator before it (or, for the first, the one after it).
  if (index > 0) return text.substr(0, e[index - 1].end) + text.substr(e[index].end);
  return text.substr(0, e[0].begin) + text.substr(e[1].begin);
}

}  // namespace mixerlab
