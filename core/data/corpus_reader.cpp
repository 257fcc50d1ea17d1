// Corpus formats, whole-file reading and splitting (see corpus_reader.h); the split rules live in
// document_splitter.h, the UTF-8 check in utf8_stream_check.h.
#include "core/data/corpus_reader.h"

#include <cctype>
#include <limits>

#include "core/data/corpus_sources.h"
#include "core/data/document_splitter.h"
#include "core/data/document_stream.h"
#include "core/data/utf8_stream_check.h"
#include "core/util/atomic_file.h"
#include "core/util/enum_names.h"
#include "core/util/error.h"
#include "core/util/hashing.h"

namespace mixerlab {
namespace fs = std::filesystem;

namespace {

std::string lowercase(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// splitCorpusText hands its text to the splitter in copies of this size (the splitter rewrites line ends
// in place).
constexpr size_t kSplitCopyBytes = size_t(4) << 20;

void requireCorpusFile(const fs::path& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) {
    throw MixerLabError("corpus file " + path.string() + " does not exist or is not a file",
                        "check the corpus path (relative paths are resolved against the project folder)");
  }
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
  // Tables and columnar files have no blank lines between their rows: read as text they would be one
  // giant document, trained on in its first context's worth of tokens.
  for (const char* table : {".csv", ".tsv", ".parquet", ".arrow"}) {
    if (ext != table) continue;
    throw MixerLabError(path.string() + " is a " + ext.substr(1) + " table, which MixerLab does not read as a corpus",
                        "convert it to JSON Lines (one {\"text\": \"...\"} object per line), or set corpus.format "
                        "(endoftext, blank_line) if the file really is plain text");
  }
  if (contents.find(kEndOfTextSeparator) != std::string_view::npos) return CorpusFormat::EndOfText;
  return CorpusFormat::BlankLine;
}

std::vector<std::string> splitCorpusText(std::string_view contents, CorpusFormat format,
                                         const std::string& source_name) {
  if (format == CorpusFormat::Auto) format = detectCorpusFormat(fs::path(source_name), contents);
  DocumentSplitter splitter(format, source_name, "text", std::numeric_limits<size_t>::max());
  std::vector<std::string> docs;
  std::string chunk;
  std::string document;
  for (size_t offset = 0;; offset += kSplitCopyBytes) {
    while (splitter.next(document)) docs.push_back(std::move(document));
    if (offset >= contents.size()) break;
    chunk.assign(contents.substr(offset, kSplitCopyBytes));
    splitter.addChunk(chunk.data(), chunk.size());
  }
  splitter.endOfText();
  while (splitter.next(document)) docs.push_back(std::move(document));
  return docs;
}

std::vector<std::string> readCorpus(const fs::path& path, CorpusFormat format) {
  requireCorpusFile(path);
  DocumentStream stream(describeSourceFile(path, format));
  std::vector<std::string> docs;
  std::string document;
  while (stream.next(document)) docs.push_back(std::move(document));
  return docs;
}

std::string CorpusFile::cacheKey() const { return content_hash + "-" + corpusFormatName(format); }

std::vector<std::string> CorpusFile::documents() const { return splitCorpusText(contents, format, path.string()); }

CorpusFile loadCorpusFile(const fs::path& path, CorpusFormat format) {
  requireCorpusFile(path);
  CorpusFile file;
  file.path = path;
  file.contents = readFile(path);
  Utf8StreamCheck(path).check(file.contents, true);
  file.content_hash = hashHex(file.contents);
  file.format = format == CorpusFormat::Auto ? detectCorpusFormat(path, file.contents) : format;
  return file;
}

}  // namespace mixerlab
