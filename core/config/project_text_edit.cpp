// Byte-preserving edits of a project file's runs array (see project_text_edit.h).
#include "core/config/project_text_edit.h"

#include <algorithm>
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
// One member of an object's text: its key (decoded) and the spans of the key and the value.
struct Member {
  std::string key;
  size_t key_begin = 0;
  Span value;
};

// The members of the object whose '{' is at `open`, and the position of its '}'; nullopt when the
// text is not an object of string keys.
std::optional<std::vector<Member>> objectMembers(const std::string& text, size_t open, size_t& close) {
  std::vector<Member> members;
  size_t i = skipSpace(text, open + 1);
  if (i < text.size() && text[i] == '}') {
    close = i;
    return members;
  }
  while (i < text.size() && text[i] == '"') {
    Member m;
    m.key_begin = i;
    const size_t key_end = skipString(text, i);
    try {
      m.key = nlohmann::json::parse(text.substr(i, key_end - i)).get<std::string>();
    } catch (const std::exception&) {
      return std::nullopt;
    }
    i = skipSpace(text, key_end);
    if (i >= text.size() || text[i] != ':') return std::nullopt;
    m.value.begin = skipSpace(text, i + 1);
    m.value.end = skipValue(text, m.value.begin);
    members.push_back(m);
    i = skipSpace(text, m.value.end);
    if (i < text.size() && text[i] == ',') {
      i = skipSpace(text, i + 1);
    } else if (i < text.size() && text[i] == '}') {
      close = i;
      return members;
    } else {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

// `value` on one line in the text's own spacing (": " and ", " when it uses them).
std::string inlineText(const nlohmann::ordered_json& value, bool spaced) {
  const std::string colon = spaced ? ": " : ":", comma = spaced ? ", " : ",";
  if (value.is_object() && !value.empty()) {
    std::string out = "{";
    for (auto it = value.begin(); it != value.end(); ++it) {
      if (it != value.begin()) out += comma;
      out += nlohmann::json(it.key()).dump() + colon + inlineText(it.value(), spaced);
    }
    return out + "}";
  }
  if (value.is_array() && !value.empty()) {
    std::string out = "[";
    for (size_t k = 0; k < value.size(); ++k) out += (k ? comma : "") + inlineText(value[k], spaced);
    return out + "]";
  }
  return value.dump();
}

// Rewrites only what changed between two versions of a value, member by member: an unchanged
// value keeps its bytes, a changed scalar or array is written where it stood in the layout it had
// (one line or spread over lines), a removed member goes with its comma and a new one follows the
// last member in its siblings' layout. The edits are collected, then applied back to front.
struct ValueSplicer {
  const std::string& text;
  int step;
  struct Edit {
    size_t begin, end;
    std::string replacement;
  };
  std::vector<Edit> edits;

  // Whether the span writes ": " and ", " (a span without separators, a number say: the file's habit).
  bool spaced(const Span& span) const {
    const std::string part = text.substr(span.begin, span.end - span.begin);
    if (part.find(": ") != std::string::npos || part.find(", ") != std::string::npos) return true;
    if (part.find_first_of(":,") != std::string::npos) return false;
    return text.find("\": ") != std::string::npos;
  }
  bool multiLine(const Span& span) const { return text.find('\n', span.begin) < span.end; }

  std::string valueText(const nlohmann::ordered_json& value, const Span& was, const std::string& indent) const {
    return multiLine(was) ? runText(value, step, indent) : inlineText(value, spaced(was));
  }

  void splice(const Span& span, const nlohmann::ordered_json& old, const nlohmann::ordered_json& updated) {
    if (old == updated) return;
    size_t close = 0;
    std::optional<std::vector<Member>> members;
    if (old.is_object() && updated.is_object() && text[span.begin] == '{')
      members = objectMembers(text, span.begin, close);
    const auto survives = [&](const Member& m) { return updated.contains(m.key); };
    if (!members || std::none_of(members->begin(), members->end(), survives)) {
      edits.push_back(
          {span.begin, span.end, valueText(keepKeyOrder(old, updated), span, lineIndent(text, span.begin))});
      return;
    }
    const std::vector<Member>& m = *members;
    const size_t first_kept = static_cast<size_t>(std::find_if(m.begin(), m.end(), survives) - m.begin());
    // Members removed before the first kept one go up to its key; later ones with the comma before them.
    if (first_kept > 0) edits.push_back({m[0].key_begin, m[first_kept].key_begin, ""});
    size_t last_kept = first_kept;
    for (size_t k = first_kept; k < m.size(); ++k) {
      if (!survives(m[k])) {
        edits.push_back({m[k - 1].value.end, m[k].value.end, ""});
        continue;
      }
      last_kept = k;
      splice(m[k].value, old.at(m[k].key), updated.at(m[k].key));
    }
    std::string added;
    const std::string indent = lineIndent(text, m[last_kept].key_begin);
    const bool spread = multiLine(span);
    for (const auto& [key, value] : updated.items()) {
      if (old.contains(key)) continue;
      const std::string name = nlohmann::json(key).dump() + (spaced(span) ? ": " : ":");
      added += spread ? ",\n" + indent + name + runText(value, step, indent)
                      : (spaced(span) ? ", " : ",") + name + inlineText(value, spaced(span));
    }
    if (!added.empty()) edits.push_back({m[last_kept].value.end, m[last_kept].value.end, added});
  }

  std::string apply() {
    std::sort(edits.begin(), edits.end(),
              [](const Edit& a, const Edit& b) { return a.begin != b.begin ? a.begin > b.begin : a.end > b.end; });
    std::string out = text;
    for (const Edit& e : edits) out.replace(e.begin, e.end - e.begin, e.replacement);
    return out;
  }
};
}  // namespace

nlohmann::ordered_json keepKeyOrder(const nlohmann::ordered_json& original, const nlohmann::ordered_json& updated) {
  if (original.is_array() && updated.is_array()) {  // element by element (the runs of a whole document)
    nlohmann::ordered_json out = updated;
    for (size_t i = 0; i < std::min(original.size(), updated.size()); ++i)
      out[i] = keepKeyOrder(original[i], updated[i]);
    return out;
  }
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
  ValueSplicer splicer{text, indentStep(text), {}};
  splicer.splice(span, old, run);
  return splicer.apply();
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

std::optional<std::string> spliceReplaceDocument(const std::string& text, const nlohmann::ordered_json& document) {
  if (jsonTooDeepAt(text) != std::string::npos) return std::nullopt;
  nlohmann::ordered_json old;
  try {
    old = nlohmann::ordered_json::parse(text);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (!old.is_object() || !document.is_object()) return std::nullopt;
  const Span span{skipSpace(text, 0), skipValue(text, skipSpace(text, 0))};
  ValueSplicer splicer{text, indentStep(text), {}};
  splicer.splice(span, old, document);
  return splicer.apply();
}

}  // namespace mixerlab
