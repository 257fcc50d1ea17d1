// Corpus file reading and document splitting (see corpus_reader.h).
#include "core/data/corpus_reader.h"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

#include "core/data/utf8.h"
#include "core/util/atomic_file.h"
#include "core/util/enum_names.h"
#include "core/util/error.h"
#include "core/util/hashing.h"
#include "core/util/json_document.h"
#include "core/util/text.h"

namespace mixerlab {
namespace fs = std::filesystem;

namespace {

constexpr std::string_view kEndOfText = "<|endoftext|>";
constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

bool isSpaceOrTab(char c) { return c == ' ' || c == '\t'; }
bool isAsciiWhitespace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

// CRLF -> LF, then lone CR -> LF; also drops a leading UTF-8 byte-order mark.
std::string normalizeNewlines(std::string_view text) {
  if (text.substr(0, kUtf8Bom.size()) == kUtf8Bom) text.remove_prefix(kUtf8Bom.size());
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\r') {
      out.push_back('\n');
      if (i + 1 < text.size() && text[i + 1] == '\n') ++i;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

// Appends `doc` without its surrounding whitespace, unless nothing is left.
void addTrimmed(std::string_view doc, std::vector<std::string>& docs) {
  size_t begin = 0;
  size_t end = doc.size();
  while (begin < end && isAsciiWhitespace(doc[begin])) ++begin;
  while (end > begin && isAsciiWhitespace(doc[end - 1])) --end;
  if (end > begin) docs.emplace_back(doc.substr(begin, end - begin));
}

// Calls fn(line, line_number) for each LF-separated line (1-based numbers, no LF included).
template <typename Fn>
void forEachLine(std::string_view text, Fn fn) {
  size_t start = 0;
  int64_t line_number = 1;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    fn(text.substr(start, end - start), line_number++);
    start = end + 1;
  }
}

std::vector<std::string> splitEndOfText(std::string_view text) {
  std::vector<std::string> docs;
  size_t start = 0;
  while (true) {
    const size_t sep = text.find(kEndOfText, start);
    if (sep == std::string_view::npos) {
      addTrimmed(text.substr(start), docs);
      return docs;
    }
    addTrimmed(text.substr(start, sep - start), docs);
    start = sep + kEndOfText.size();
  }
}

std::vector<std::string> splitBlankLine(std::string_view text) {
  std::vector<std::string> docs;
  size_t doc_begin = std::string_view::npos;  // offset of the current document's first line
  size_t doc_end = 0;                         // end of its last non-blank line
  forEachLine(text, [&](std::string_view line, int64_t) {
    const size_t line_begin = static_cast<size_t>(line.data() - text.data());
    if (std::all_of(line.begin(), line.end(), isSpaceOrTab)) {
      if (doc_begin != std::string_view::npos) addTrimmed(text.substr(doc_begin, doc_end - doc_begin), docs);
      doc_begin = std::string_view::npos;
      return;
    }
    if (doc_begin == std::string_view::npos) doc_begin = line_begin;
    doc_end = line_begin + line.size();
  });
  if (doc_begin != std::string_view::npos) addTrimmed(text.substr(doc_begin, doc_end - doc_begin), docs);
  return docs;
}

std::vector<std::string> splitJsonLines(std::string_view text, const std::string& source_name) {
  std::vector<std::string> docs;
  forEachLine(text, [&](std::string_view line, int64_t line_number) {
    if (std::all_of(line.begin(), line.end(), isAsciiWhitespace)) return;
    const std::string where = source_name + ":" + std::to_string(line_number);
    const std::string fix = "each line must be one JSON object with a string field \"text\"";
    checkJsonLineDepth(line, where);
    nlohmann::json record;
    try {
      record = nlohmann::json::parse(line);
    } catch (const nlohmann::json::exception& e) {
      throw MixerLabError(where + ": malformed JSON line (" + abbreviated(e.what(), 200) + ")", fix);
    }
    if (!record.is_object()) throw MixerLabError(where + ": the line is not a JSON object", fix);
    const auto text_field = record.find("text");
    if (text_field == record.end()) throw MixerLabError(where + ": the object has no \"text\" field", fix);
    if (!text_field->is_string()) throw MixerLabError(where + ": the \"text\" field is not a string", fix);
    addTrimmed(normalizeNewlines(text_field->get<std::string>()), docs);
  });
  return docs;
}

std::string lowercase(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

namespace {
constexpr EnumName<CorpusFormat> kCorpusFormatNames[] = {{CorpusFormat::Auto, "auto"},
                                                         {CorpusFormat::EndOfText, "endoftext"},
                                                         {CorpusFormat::BlankLine, "blank_line"},
                                                         {CorpusFormat::JsonLines, "jsonl"}};
}  // namespace

CorpusFormat parseCorpusFormat(const std::string& name) {
  if (const auto format = enumFromName(kCorpusFormatNames, name)) return *format;
  throw MixerLabError("unknown corpus format \"" + name + "\"", "use one of: auto, endoftext, blank_line, jsonl");
}

std::string corpusFormatName(CorpusFormat format) { return enumName(kCorpusFormatNames, format, "auto"); }

CorpusFormat detectCorpusFormat(const fs::path& path, std::string_view contents) {
  const std::string ext = lowercase(path.extension().string());
  if (ext == ".jsonl" || ext == ".json") return CorpusFormat::JsonLines;
  if (contents.find(kEndOfText) != std::string_view::npos) return CorpusFormat::EndOfText;
  return CorpusFormat::BlankLine;
}

std::vector<std::string> splitCorpusText(std::string_view contents, CorpusFormat format,
                                         const std::string& source_name) {
  if (format == CorpusFormat::Auto) format = detectCorpusFormat(fs::path(source_name), contents);
  // Most corpora need no normalising; skip the copy then (corpora can be gigabytes).
  std::string normalized;
  std::string_view text = contents;
  if (contents.find('\r') != std::string_view::npos || contents.substr(0, kUtf8Bom.size()) == kUtf8Bom) {
    normalized = normalizeNewlines(contents);
    text = normalized;
  }
  switch (format) {
    case CorpusFormat::EndOfText:
      return splitEndOfText(text);
    case CorpusFormat::JsonLines:
      return splitJsonLines(text, source_name);
    case CorpusFormat::BlankLine:
    case CorpusFormat::Auto:
      break;
  }
  return splitBlankLine(text);
}

std::vector<std::string> readCorpus(const fs::path& path, CorpusFormat format) {
  return loadCorpusFile(path, format).documents();
}

std::string CorpusFile::cacheKey() const { return content_hash + "-" + corpusFormatName(format); }

std::vector<std::string> CorpusFile::documents() const { return splitCorpusText(contents, format, path.string()); }

namespace {

std::string hexByte(unsigned char byte) {
  static constexpr char kDigits[] = "0123456789ABCDEF";
  return std::string("0x") + kDigits[byte >> 4] + kDigits[byte & 0xF];
}

// Control bytes that no text file in a single-byte encoding holds (tab, newlines, form feed and escape allowed).
bool isBinaryControlByte(unsigned char byte) {
  return (byte < 0x20 && byte != '\t' && byte != '\n' && byte != '\r' && byte != '\f' && byte != '\v' &&
          byte != 0x1B) ||
         byte == 0x7F;
}

// Whether bytes that are not UTF-8 read as Latin-1 (ISO-8859-1) or Windows-1252 text: no binary control
// bytes, and every byte that is not part of a UTF-8 character is a character of Windows-1252 (which leaves
// 0x81, 0x8D, 0x8F, 0x90 and 0x9D undefined; Latin-1 letters are 0xC0-0xFF).
bool readsAsLatin1(std::string_view text, size_t first_invalid) {
  if (std::any_of(text.begin(), text.end(),
                  [](char c) { return isBinaryControlByte(static_cast<unsigned char>(c)); })) {
    return false;
  }
  for (size_t pos = first_invalid; pos != std::string_view::npos && pos < text.size();) {
    const auto byte = static_cast<unsigned char>(text[pos]);
    if (byte == 0x81 || byte == 0x8D || byte == 0x8F || byte == 0x90 || byte == 0x9D) return false;
    const size_t next = utf8::firstInvalidByte(text.substr(pos + 1));
    pos = next == std::string_view::npos ? next : pos + 1 + next;
  }
  return true;
}

// Refuses a corpus that is not UTF-8 text, naming what it is instead: UTF-16 (its byte-order mark), binary
// data (a NUL byte), Latin-1 / Windows-1252 text, or UTF-8 with a bad byte; each with the place and the fix.
void requireUtf8Text(const fs::path& path, const std::string& text) {
  const std::string name = path.string();
  const std::string converted =
      (path.parent_path() / (path.stem().string() + ".utf8" + path.extension().string())).string();
  const std::string repoint = ", and point the corpus at the new file";
  if (text.rfind("\xFF\xFE", 0) == 0 || text.rfind("\xFE\xFF", 0) == 0) {
    throw MixerLabError("corpus file " + name + " is UTF-16 text (it starts with a UTF-16 byte-order mark), not UTF-8",
                        "convert it: iconv -f UTF-16 -t UTF-8 " + name + " > " + converted + repoint);
  }
  if (const size_t nul = text.find('\0'); nul != std::string::npos) {
    throw MixerLabError("corpus file " + name + " is not UTF-8 text (binary data: a NUL byte at byte offset " +
                            std::to_string(nul) + ")",
                        "point the corpus at a text file: plain text, JSON Lines or a blank-line separated file");
  }
  const size_t bad = utf8::firstInvalidByte(text);
  if (bad == std::string::npos) return;
  const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(bad), '\n');
  const std::string place = "byte " + hexByte(static_cast<unsigned char>(text[bad])) + " at line " +
                            std::to_string(line) + " (byte offset " + std::to_string(bad) + ")";
  if (readsAsLatin1(text, bad)) {
    throw MixerLabError("corpus file " + name + " is not UTF-8: it looks like Latin-1 (ISO-8859-1) or Windows-1252 " +
                            "text (" + place + " is not UTF-8)",
                        "convert it: iconv -f LATIN1 -t UTF-8 " + name + " > " + converted +
                            " (-f CP1252 for Windows text with curly quotes)" + repoint);
  }
  throw MixerLabError("corpus file " + name + " is not valid UTF-8: " + place + " does not start a UTF-8 character",
                      "convert it from its encoding: iconv -f <encoding> -t UTF-8 " + name + " > " + converted +
                          repoint + "; or remove the stray bytes at line " + std::to_string(line));
}

}  // namespace

CorpusFile loadCorpusFile(const fs::path& path, CorpusFormat format) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) {
    throw MixerLabError("corpus file " + path.string() + " does not exist or is not a file",
                        "check the corpus path (relative paths are resolved against the project folder)");
  }
  CorpusFile file;
  file.path = path;
  file.contents = readFile(path);
  requireUtf8Text(path, file.contents);
  file.content_hash = hashHex(file.contents);
  file.format = format == CorpusFormat::Auto ? detectCorpusFormat(path, file.contents) : format;
  return file;
}

}  // namespace mixerlab
