// Tests for the streaming corpus reader: core/data/document_stream (byte sources, the UTF-8 check and the
// splitter chunk by chunk) and core/data/corpus_sources (inputs expanded into files, compression, formats,
// fingerprints). The documents must equal splitCorpusText's, and the rules before streaming (a copy of
// the old whole-text splitter below), for every chunk size down to one byte, plain, gzip and zstd.
#include <QtTest/QtTest>

#include <sys/stat.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "core/data/corpus_reader.h"
#include "core/data/corpus_sources.h"
#include "core/data/document_stream.h"
#include "core/util/error.h"
#include "tests/test_support.h"

using namespace mixerlab;
using Docs = std::vector<std::string>;
namespace fs = std::filesystem;

namespace {

const std::vector<size_t> kTinyChunkSizes = {1, 2, 3, 7, 64};
constexpr std::string_view kEndOfText = "<|endoftext|>";

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }
#define VERIFY_CONTAINS(text, part) \
  QVERIFY2(contains(text, part), (std::string("\"") + (part) + "\" not in: " + (text)).c_str())

// ---- The whole-text splitter as it was before streaming: an oracle independent of DocumentSplitter. ----
bool referenceIsWhitespace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

std::string referenceNormalize(std::string_view text) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  std::string out;
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

void referenceAdd(std::string_view doc, Docs& docs) {
  size_t begin = 0, end = doc.size();
  while (begin < end && referenceIsWhitespace(doc[begin])) ++begin;
  while (end > begin && referenceIsWhitespace(doc[end - 1])) --end;
  if (end > begin) docs.emplace_back(doc.substr(begin, end - begin));
}

std::vector<std::string_view> referenceLines(std::string_view text) {
  std::vector<std::string_view> lines;
  for (size_t start = 0; start <= text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

Docs referenceSplit(std::string_view contents, CorpusFormat format, const std::string& json_field = "text") {
  const std::string text = referenceNormalize(contents);
  Docs docs;
  if (format == CorpusFormat::EndOfText) {
    size_t start = 0;
    for (size_t sep; (sep = text.find(kEndOfText, start)) != std::string::npos; start = sep + kEndOfText.size()) {
      referenceAdd(std::string_view(text).substr(start, sep - start), docs);
    }
    referenceAdd(std::string_view(text).substr(start), docs);
  } else if (format == CorpusFormat::BlankLine) {
    std::string doc;
    bool in_doc = false;
    for (std::string_view line : referenceLines(text)) {
      if (std::all_of(line.begin(), line.end(), [](char c) { return c == ' ' || c == '\t'; })) {
        if (in_doc) referenceAdd(doc, docs);
        in_doc = false;
        doc.clear();
        continue;
      }
      if (in_doc) doc += '\n';
      doc += line;
      in_doc = true;
    }
    if (in_doc) referenceAdd(doc, docs);
  } else {
    for (std::string_view line : referenceLines(text)) {
      if (std::all_of(line.begin(), line.end(), referenceIsWhitespace)) continue;
      referenceAdd(referenceNormalize(nlohmann::json::parse(line).at(json_field).get<std::string>()), docs);
    }
  }
  return docs;
}

// ---- Generated corpora: every edge case the split rules have, in random order. ----
std::string randomPlainCorpus(uint32_t seed, size_t pieces) {
  static const std::vector<std::string> kPieces = {"Once",
                                                   "upon",
                                                   "a time",
                                                   "Zo\xc3\xab",
                                                   "\xe7\x8c\xab",
                                                   "\xf0\x9f\x99\x82",
                                                   "na\xc3\xafve caf\xc3\xa9",
                                                   " ",
                                                   "  ",
                                                   "\t",
                                                   "\n",
                                                   "\n",
                                                   "\r\n",
                                                   "\r",
                                                   "\n\n",
                                                   "\r\n\r\n",
                                                   "\r\r",
                                                   "\n \t \n",
                                                   "\r\n\t\r\n",
                                                   "\n  \n\n",
                                                   "<|endoftext|>",
                                                   "\n<|endoftext|>\n",
                                                   "<|endoftext|><|endoftext|>",
                                                   "<|end",
                                                   "<|",
                                                   "<",
                                                   "<|endoftext|",
                                                   "<<|endoftext|>",
                                                   "\f",
                                                   "\v",
                                                   " \f \n",
                                                   "x",
                                                   "|>",
                                                   "endoftext|>"};
  std::mt19937 rng(seed);
  std::string text = seed % 3 == 0 ? "\xEF\xBB\xBF" : "";
  for (size_t i = 0; i < pieces; ++i) text += kPieces[rng() % kPieces.size()];
  return text;
}

std::string randomJsonCorpus(uint32_t seed, size_t lines, const std::string& field = "text") {
  static const std::vector<std::string> kValues = {"hello",
                                                   "  padded  ",
                                                   "line\\nbreak",
                                                   "crlf\\r\\nend",
                                                   "lone\\rcr",
                                                   "",
                                                   "   ",
                                                   "Zo\xc3\xab \xf0\x9f\x99\x82",
                                                   "\\u00e9t\\u00e9",
                                                   "\\ufeffbom first",
                                                   "tab\\there",
                                                   "<|endoftext|>"};
  static const std::vector<std::string> kLineEnds = {"\n", "\r\n", "\r", "\n\n", "\n   \n", "\r\n\t\r\n"};
  std::mt19937 rng(seed);
  std::string text = seed % 2 == 0 ? "\xEF\xBB\xBF" : "";
  for (size_t i = 0; i < lines; ++i) {
    std::string value = kValues[rng() % kValues.size()] + kValues[rng() % kValues.size()];
    text += rng() % 2 == 0 ? "{\"" + field + "\": \"" + value + "\", \"id\": " + std::to_string(i) + "}"
                           : "{\"id\": " + std::to_string(i) + ",\"" + field + "\":\"" + value + "\"}  ";
    if (i + 1 < lines || rng() % 2 == 0) text += kLineEnds[rng() % kLineEnds.size()];
  }
  return text;
}

// ---- Helpers ----
Docs streamAll(const SourceFile& file, size_t read_chunk_bytes, const std::string& json_field = "text",
               size_t max_document_bytes = size_t(256) << 20) {
  DocumentStream stream(file, json_field, max_document_bytes, read_chunk_bytes);
  Docs docs;
  std::string doc;
  while (stream.next(doc)) docs.push_back(doc);
  if (stream.documentsRead() != static_cast<int64_t>(docs.size())) docs.push_back("(documentsRead is off)");
  return docs;
}

Docs streamFile(const fs::path& path, CorpusFormat format, size_t read_chunk_bytes,
                const std::string& json_field = "text", size_t max_document_bytes = size_t(256) << 20) {
  return streamAll(describeSourceFile(path, format), read_chunk_bytes, json_field, max_document_bytes);
}

// streamFile's documents, or one entry "error: <message>" (so a comparison fails and the test goes on).
Docs documentsOf(const fs::path& path, CorpusFormat format, size_t read_chunk_bytes,
                 const std::string& json_field = "text", size_t max_document_bytes = size_t(256) << 20) {
  try {
    return streamFile(path, format, read_chunk_bytes, json_field, max_document_bytes);
  } catch (const std::exception& e) {
    return {std::string("error: ") + e.what()};
  }
}

// Where two document lists first differ, for a failure message.
std::string firstDifference(const Docs& got, const Docs& expected) {
  size_t i = 0;
  while (i < got.size() && i < expected.size() && got[i] == expected[i]) ++i;
  const auto at = [i](const Docs& docs) { return i < docs.size() ? "\"" + docs[i].substr(0, 120) + "\"" : "(none)"; };
  return "document " + std::to_string(i + 1) + ": got " + at(got) + ", expected " + at(expected);
}

Docs readCorpusOrError(const fs::path& path) {
  try {
    return readCorpus(path);
  } catch (const std::exception& e) {
    return {std::string("error: ") + e.what()};
  }
}

std::string gzipBytes(std::string_view text) {
  z_stream stream{};
  deflateInit2(&stream, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&stream, static_cast<uLong>(text.size())) + 64, '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  stream.avail_in = static_cast<uInt>(text.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  if (deflate(&stream, Z_FINISH) != Z_STREAM_END) throw std::runtime_error("deflate did not finish");
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return out;
}

std::string zstdBytes(std::string_view text, bool checksum = false) {
  ZSTD_CCtx* context = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(context, ZSTD_c_compressionLevel, 3);
  ZSTD_CCtx_setParameter(context, ZSTD_c_checksumFlag, checksum ? 1 : 0);
  std::string out(ZSTD_compressBound(text.size()), '\0');
  const size_t size = ZSTD_compress2(context, out.data(), out.size(), text.data(), text.size());
  ZSTD_freeCCtx(context);
  if (ZSTD_isError(size)) throw std::runtime_error("zstd compression failed");
  out.resize(size);
  return out;
}

// `text` cut into `parts` pieces at arbitrary bytes (a UTF-8 character may straddle two).
std::vector<std::string_view> cutInto(std::string_view text, size_t parts) {
  std::vector<std::string_view> pieces;
  for (size_t i = 0; i < parts; ++i) {
    const size_t begin = text.size() * i / parts;
    pieces.push_back(text.substr(begin, text.size() * (i + 1) / parts - begin));
  }
  return pieces;
}

int64_t residentKiB() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stoll(line.substr(6));
  }
  return -1;
}

// TinyStories-like documents separated by "<|endoftext|>", about `megabytes` MB, written in pieces.
int64_t writeLargeCorpus(const fs::path& path, size_t megabytes) {
  std::ofstream out(path, std::ios::binary);
  std::mt19937 rng(7);
  static const std::vector<std::string> kWords = {
      "Once", "upon",  "a",  "time,", "there",   "was",  "a",   "little", "girl", "named",        "Lily.",
      "She",  "liked", "to", "play",  "outside", "with", "her", "dog",    "Max.", "\xe7\x8c\xab", "\n"};
  int64_t documents = 0;
  std::string block;
  for (size_t written = 0; written < megabytes << 20; written += block.size()) {
    block.clear();
    while (block.size() < (1u << 20)) {
      const size_t words = 50 + rng() % 200;
      for (size_t w = 0; w < words; ++w) block += kWords[rng() % kWords.size()] + " ";
      block += "The end.\n<|endoftext|>\n";
      ++documents;
    }
    out << block;
  }
  return documents;
}

}  // namespace

class TestCorpusStream : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  // Random documents with CRLF, lone CR, BOM, blank lines of spaces and tabs, separators and their
  // starts everywhere, Unicode: the same documents as splitCorpusText (and the old splitter) for chunks
  // of 1, 2, 3, 7 and 64 bytes, so every chunk edge falls in every place.
  void sameDocumentsAsSplitCorpusText() {
    const auto dir = testing::makeScratchDir("stream-equal");
    for (uint32_t seed = 0; seed < 12; ++seed) {
      for (CorpusFormat format : {CorpusFormat::EndOfText, CorpusFormat::BlankLine, CorpusFormat::JsonLines}) {
        const bool json = format == CorpusFormat::JsonLines;
        const std::string contents = json ? randomJsonCorpus(seed, 60) : randomPlainCorpus(seed, 600);
        const fs::path path = dir / ("c" + std::to_string(seed) + (json ? ".jsonl" : ".txt"));
        testing::writeText(path, contents);
        const Docs expected = splitCorpusText(contents, format, path.string());
        QCOMPARE(expected, referenceSplit(contents, format));
        QVERIFY(expected.size() > 5);
        std::vector<size_t> chunk_sizes = kTinyChunkSizes;
        chunk_sizes.push_back(size_t(4) << 20);
        for (size_t chunk : chunk_sizes) {
          const SourceFile file = describeSourceFile(path, format);
          DocumentStream stream(file, "text", size_t(256) << 20, chunk);
          Docs docs;
          try {
            for (std::string doc; stream.next(doc);) docs.push_back(doc);
          } catch (const std::exception& e) {
            docs = {std::string("error: ") + e.what()};
          }
          QVERIFY2(docs == expected, ("seed " + std::to_string(seed) + ", format " + corpusFormatName(format) +
                                      ", chunk " + std::to_string(chunk) + ": " + firstDifference(docs, expected))
                                         .c_str());
          QCOMPARE(stream.textBytesRead(), uint64_t(contents.size()));
          QCOMPARE(stream.sourceBytesRead(), uint64_t(contents.size()));
          QCOMPARE(stream.documentsRead(), int64_t(expected.size()));
          std::string after_end;
          QVERIFY(!stream.next(after_end));  // stays at the end
        }
      }
    }
  }

  // A separator (or a start of one that does not go on) at every offset around a chunk edge.
  void separatorAtEveryChunkEdge() {
    const auto dir = testing::makeScratchDir("stream-separator");
    for (size_t chunk : {size_t(7), size_t(64)}) {
      for (size_t k = 0; k < chunk + 16; ++k) {
        const std::string before(k, 'x');
        testing::writeText(dir / "a.txt", before + "<|endoftext|>y");
        Docs expected = k > 0 ? Docs{before, "y"} : Docs{"y"};
        QCOMPARE(documentsOf(dir / "a.txt", CorpusFormat::EndOfText, chunk), expected);
        testing::writeText(dir / "b.txt", before + "<|endoftex<|endoftext|>z<|endoftext|");
        QCOMPARE(documentsOf(dir / "b.txt", CorpusFormat::EndOfText, chunk),
                 (Docs{before + "<|endoftex", "z<|endoftext|"}));
      }
    }
  }

  // CR LF split by a chunk edge is one line end, not two (which would make a blank line).
  void crlfAtEveryChunkEdge() {
    const auto dir = testing::makeScratchDir("stream-crlf");
    for (size_t chunk : {size_t(1), size_t(2), size_t(3), size_t(5), size_t(8)}) {
      for (size_t k = 1; k < 20; ++k) {
        const std::string line(k, 'a');
        testing::writeText(dir / "one.txt", line + "\r\nb\r\n");
        QCOMPARE(documentsOf(dir / "one.txt", CorpusFormat::BlankLine, chunk), (Docs{line + "\nb"}));
        testing::writeText(dir / "two.txt", line + "\r\r\nb\rc");
        QCOMPARE(documentsOf(dir / "two.txt", CorpusFormat::BlankLine, chunk), (Docs{line, "b\nc"}));
        testing::writeText(dir / "j.jsonl", "{\"text\": \"" + line + "\"}\r\n{\"text\": \"q\"}\r\r\n");
        QCOMPARE(documentsOf(dir / "j.jsonl", CorpusFormat::JsonLines, chunk), (Docs{line, "q"}));
      }
    }
  }

  // gzip (one member, several members as `cat a.gz b.gz` makes, an empty member) and zstd (one frame,
  // several frames, with and without checksums) give the documents of the text, for any chunk size.
  void compressedFilesGiveTheSameDocuments() {
    const auto dir = testing::makeScratchDir("stream-compressed");
    const std::string text = randomPlainCorpus(5, 4000);
    const std::string json = randomJsonCorpus(6, 300);
    struct Case {
      std::string name;
      std::string bytes;
      Compression compression;
      const std::string* text;
    };
    std::vector<Case> cases;
    cases.push_back({"one.txt.gz", gzipBytes(text), Compression::Gzip, &text});
    std::string members;
    for (std::string_view part : cutInto(text, 3)) members += gzipBytes(part) + gzipBytes("");
    cases.push_back({"members.txt.gz", members, Compression::Gzip, &text});
    cases.push_back({"one.txt.zst", zstdBytes(text), Compression::Zstd, &text});
    std::string frames;
    for (std::string_view part : cutInto(text, 4)) frames += zstdBytes(part, frames.size() % 2 == 0);
    cases.push_back({"frames.txt.zstd", frames, Compression::Zstd, &text});
    std::string json_members;
    for (std::string_view part : cutInto(json, 2)) json_members += gzipBytes(part);
    cases.push_back({"shard.jsonl.gz", json_members, Compression::Gzip, &json});
    cases.push_back({"shard.json.zst", zstdBytes(json), Compression::Zstd, &json});
    cases.push_back({"no-extension-hint", gzipBytes(text), Compression::Gzip, &text});  // found by content
    for (const Case& c : cases) {
      testing::writeText(dir / c.name, c.bytes);
      const SourceFile file = describeSourceFile(dir / c.name, CorpusFormat::Auto);
      QCOMPARE(file.compression, c.compression);
      QCOMPARE(compressionName(file.compression), std::string(c.compression == Compression::Gzip ? "gzip" : "zstd"));
      QCOMPARE(file.size_bytes, uint64_t(c.bytes.size()));
      const bool json_case = c.text == &json;
      QCOMPARE(file.format, json_case ? CorpusFormat::JsonLines : CorpusFormat::EndOfText);
      const Docs expected = splitCorpusText(*c.text, file.format, c.name);
      QVERIFY(expected.size() > 20);
      for (size_t chunk : {size_t(1), size_t(7), size_t(64), size_t(4096), size_t(4) << 20}) {
        DocumentStream stream(file, "text", size_t(256) << 20, chunk);
        Docs docs;
        try {
          for (std::string doc; stream.next(doc);) docs.push_back(doc);
        } catch (const std::exception& e) {
          docs = {std::string("error: ") + e.what()};
        }
        QVERIFY2(docs == expected,
                 (c.name + ", chunk " + std::to_string(chunk) + ": " + firstDifference(docs, expected)).c_str());
        QCOMPARE(stream.sourceBytesRead(), uint64_t(c.bytes.size()));
        QCOMPARE(stream.textBytesRead(), uint64_t(c.text->size()));
      }
      QCOMPARE(readCorpusOrError(dir / c.name), expected);  // readCorpus streams too
    }
    // A text file whose name says gzip is read as the text it is.
    testing::writeText(dir / "plain.txt.gz", "A\n\nB");
    QCOMPARE(describeSourceFile(dir / "plain.txt.gz", CorpusFormat::Auto).compression, Compression::None);
    QCOMPARE(compressionName(Compression::None), std::string("none"));
    QCOMPARE(readCorpusOrError(dir / "plain.txt.gz"), (Docs{"A", "B"}));
  }

  // A cut-off or damaged compressed file is refused with its name, never read short or crashed on.
  void damagedCompressedFilesAreRefused() {
    const auto dir = testing::makeScratchDir("stream-damaged");
    const std::string text = randomPlainCorpus(8, 3000);
    const std::string gz = gzipBytes(text);
    const std::string two_members = gzipBytes(text.substr(0, 100)) + gzipBytes(text.substr(100));
    const std::string zst = zstdBytes(text, true);
    const std::string two_frames = zstdBytes(text.substr(0, 100)) + zstdBytes(text.substr(100));
    struct Case {
      std::string name;
      std::string bytes;
      std::string kind;
    };
    const std::vector<Case> cases = {
        {"head.gz", gz.substr(0, 5), "truncated gzip"},
        {"half.gz", gz.substr(0, gz.size() / 2), "truncated gzip"},
        {"no-trailer.gz", gz.substr(0, gz.size() - 4), "truncated gzip"},
        {"second-member-cut.gz", two_members.substr(0, gzipBytes(text.substr(0, 100)).size() + 3), "truncated gzip"},
        {"bad-crc.gz", gz.substr(0, gz.size() - 8) + std::string(4, '\x55') + gz.substr(gz.size() - 4), "damaged gzip"},
        {"trailing-garbage.gz", gz + "garbage", "damaged gzip"},
        {"head.zst", zst.substr(0, 5), "truncated zstd"},
        {"half.zst", zst.substr(0, zst.size() / 2), "truncated zstd"},
        {"no-checksum.zst", zst.substr(0, zst.size() - 1), "truncated zstd"},
        {"second-frame-cut.zst", two_frames.substr(0, two_frames.size() - 10), "truncated zstd"},
        {"bad-checksum.zst", zst.substr(0, zst.size() - 4) + std::string(4, '\x55'), "damaged zstd"},
        {"trailing-garbage.zst", zst + "garbage!", "damaged zstd"},
    };
    for (const Case& c : cases) {
      testing::writeText(dir / c.name, c.bytes);
      for (size_t chunk : {size_t(1), size_t(4096)}) {
        const std::string message = testing::errorOf([&] { streamFile(dir / c.name, CorpusFormat::BlankLine, chunk); });
        QVERIFY2(!message.empty(), (c.name + " was read without an error").c_str());
        VERIFY_CONTAINS(message, (dir / c.name).string());
        VERIFY_CONTAINS(message, "is a " + c.kind + " file");
        VERIFY_CONTAINS(message, c.kind.substr(c.kind.find(' ') + 1) + " -t");
      }
    }
    // Auto reads the start of the file to find the format: a damaged start is refused there.
    const std::string message =
        testing::errorOf([&] { expandCorpusSources({(dir / "head.gz").string()}, CorpusFormat::Auto); });
    VERIFY_CONTAINS(message, "truncated gzip");
  }

  // A folder: its regular files recursively, sorted by path; hidden, temporary and duplicate files left out.
  void folderExpansion() {
    const auto dir = testing::makeScratchDir("stream-folder");
    const fs::path root = dir / "corpus";
    testing::writeText(root / "b.txt", "B1\n\nB2");
    testing::writeText(root / "a/2.jsonl", "{\"text\": \"x\"}\n");
    testing::writeText(root / "a/10.txt", "one<|endoftext|>two");
    testing::writeText(root / "a/sub/z.txt", "z");
    testing::writeText(root / ".hidden.txt", "h");
    testing::writeText(root / ".git/config.txt", "g");
    testing::writeText(root / "c.txt.tmp", "t");
    testing::writeText(root / "d.tmp-123.txt", "t");
    testing::writeText(root / "writing.tmp-9/e.txt", "t");
    testing::writeText(root / "shard.jsonl.gz", gzipBytes("{\"text\": \"s\"}\n"));
    testing::writeText(dir / "outside.txt", "o");
    fs::create_symlink(root / "b.txt", root / "link.txt");        // the same file again: listed once
    fs::create_symlink(dir / "outside.txt", root / "zlink.txt");  // followed
    const std::vector<SourceFile> files = expandCorpusSources({root.string()}, CorpusFormat::Auto);
    std::vector<std::string> names;
    for (const SourceFile& file : files) names.push_back(file.path.lexically_relative(root).string());
    QCOMPARE(names, (std::vector<std::string>{"a/10.txt", "a/2.jsonl", "a/sub/z.txt", "b.txt", "shard.jsonl.gz",
                                              "zlink.txt"}));
    const std::vector<CorpusFormat> formats = {CorpusFormat::EndOfText, CorpusFormat::JsonLines,
                                               CorpusFormat::BlankLine, CorpusFormat::BlankLine,
                                               CorpusFormat::JsonLines, CorpusFormat::BlankLine};
    for (size_t i = 0; i < files.size(); ++i) {
      QCOMPARE(files[i].format, formats[i]);
      QCOMPARE(files[i].size_bytes, uint64_t(fs::file_size(files[i].path)));
      QVERIFY(files[i].mtime_ns > 1000000000LL * 1000000000LL);  // after 2001, in nanoseconds
      QCOMPARE(files[i].compression, names[i] == "shard.jsonl.gz" ? Compression::Gzip : Compression::None);
    }
    QCOMPARE(documentsOf(files[4].path, files[4].format, 64), (Docs{"s"}));
    // A given format applies to every file; a file named before its folder keeps its place.
    const auto blank = expandCorpusSources({(root / "b.txt").string(), root.string()}, CorpusFormat::BlankLine);
    QCOMPARE(blank.size(), size_t(6));
    QCOMPARE(blank[0].path, root / "b.txt");
    QCOMPARE(blank[1].path, root / "a/10.txt");
    for (const SourceFile& file : blank) QCOMPARE(file.format, CorpusFormat::BlankLine);
    // Relative inputs resolve against base_dir.
    const auto relative = expandCorpusSources({"corpus/a/sub/z.txt", "corpus/a"}, CorpusFormat::Auto, dir);
    QCOMPARE(relative.size(), size_t(3));
    QCOMPARE(relative[0].path, root / "a/sub/z.txt");
    QCOMPARE(relative[1].path, root / "a/10.txt");
    // A folder with nothing to read is refused.
    fs::create_directories(dir / "empty/.cache");
    testing::writeText(dir / "empty/.cache/x.txt", "x");
    const std::string message = testing::errorOf([&] { expandCorpusSources({"empty"}, CorpusFormat::Auto, dir); });
    VERIFY_CONTAINS(message, "corpus folder empty");
    VERIFY_CONTAINS(message, "holds no corpus file");
  }

  void globsAndMissingInputs() {
    const auto dir = testing::makeScratchDir("stream-glob");
    for (const char* name : {"3.txt", "1.txt", "2.txt", "notes.md", "4.txt.tmp", "5.tmp-1.txt", ".6.txt"}) {
      testing::writeText(dir / "g" / name, name);
    }
    testing::writeText(dir / "g/sub/7.txt", "7");
    const auto names = [&](const std::vector<SourceFile>& files) {
      std::vector<std::string> out;
      for (const SourceFile& file : files) out.push_back(file.path.lexically_relative(dir).string());
      return out;
    };
    QCOMPARE(names(expandCorpusSources({(dir / "g/*.txt").string()}, CorpusFormat::Auto)),
             (std::vector<std::string>{"g/1.txt", "g/2.txt", "g/3.txt"}));
    QCOMPARE(names(expandCorpusSources({"g/[23].txt", "g/?.txt"}, CorpusFormat::Auto, dir)),
             (std::vector<std::string>{"g/2.txt", "g/3.txt", "g/1.txt"}));
    QCOMPARE(names(expandCorpusSources({"g/*"}, CorpusFormat::Auto, dir)),
             (std::vector<std::string>{"g/1.txt", "g/2.txt", "g/3.txt", "g/notes.md", "g/sub/7.txt"}));

    std::string message = testing::errorOf([&] { expandCorpusSources({"nope/stories.txt"}, CorpusFormat::Auto, dir); });
    VERIFY_CONTAINS(message, "corpus input nope/stories.txt does not exist");
    VERIFY_CONTAINS(message, (dir / "nope/stories.txt").string());
    VERIFY_CONTAINS(message, "a relative path is read against the folder " + dir.string());
    message = testing::errorOf([&] { expandCorpusSources({"g/*.parquet"}, CorpusFormat::Auto, dir); });
    VERIFY_CONTAINS(message, "corpus pattern g/*.parquet");
    VERIFY_CONTAINS(message, "matches no file");
    VERIFY_CONTAINS(message, "glob syntax");
    message =
        testing::errorOf([&] { expandCorpusSources({"g/*.tmp"}, CorpusFormat::Auto, dir); });  // only a temporary file
    VERIFY_CONTAINS(message, "matches no file");
  }

  void jsonFieldIsConfigurable() {
    const auto dir = testing::makeScratchDir("stream-field");
    const fs::path path = dir / "c.jsonl";
    testing::writeText(path,
                       "{\"content\": \"A\", \"text\": \"not this\"}\n\n{\"content\": \"  B\\r\\nC \"}\r\n"
                       "{\"content\": \"   \"}\n");
    for (size_t chunk : kTinyChunkSizes) {
      QCOMPARE(documentsOf(path, CorpusFormat::JsonLines, chunk, "content"), (Docs{"A", "B\nC"}));
    }
    std::string message = testing::errorOf([&] { streamFile(path, CorpusFormat::JsonLines, 7); });
    VERIFY_CONTAINS(message, path.string() + ":3: the object has no \"text\" field");
    VERIFY_CONTAINS(message, "string field \"text\"");

    testing::writeText(path, "{\"content\": \"A\"}\n{\"text\": \"B\"}\n");
    message = testing::errorOf([&] { streamFile(path, CorpusFormat::JsonLines, 3, "content"); });
    VERIFY_CONTAINS(message, path.string() + ":2: the object has no \"content\" field");
    VERIFY_CONTAINS(message, "each line must be one JSON object with a string field \"content\"");
    testing::writeText(path, "{\"content\": 5}\n");
    message = testing::errorOf([&] { streamFile(path, CorpusFormat::JsonLines, 3, "content"); });
    VERIFY_CONTAINS(message, path.string() + ":1: the \"content\" field is not a string");
    // The depth check runs on streamed lines too.
    testing::writeText(path, "{\"text\": \"ok\"}\n{\"text\": \"a\", \"m\": " + std::string(1000, '[') +
                                 std::string(1000, ']') + "}\n");
    message = testing::errorOf([&] { streamFile(path, CorpusFormat::JsonLines, 64); });
    VERIFY_CONTAINS(message, path.string() + ":2: ");
    VERIFY_CONTAINS(message, "nested deeper than 256 levels");
  }

  // max_document_bytes: a document of exactly that many bytes passes, one byte more is refused with the
  // file, the document's number and line; whitespace around a document does not count.
  void documentLimitBoundary() {
    const auto dir = testing::makeScratchDir("stream-limit");
    const size_t limit = 100;
    const std::string max_doc(limit, 'x');
    const std::string sep(kEndOfText);
    for (size_t chunk : {size_t(1), size_t(7), size_t(64), size_t(1) << 16}) {
      const auto read = [&](const std::string& name, const std::string& text, CorpusFormat format) {
        testing::writeText(dir / name, text);
        return documentsOf(dir / name, format, chunk, "text", limit);
      };
      const auto refusal = [&](const std::string& name, const std::string& text, CorpusFormat format) {
        testing::writeText(dir / name, text);
        return testing::errorOf([&] { streamFile(dir / name, format, chunk, "text", limit); });
      };
      const std::string spaces(300, ' ');
      QCOMPARE(read("e.txt", "  \n" + max_doc + " \n\n" + sep + "\nshort\n" + sep + "\n\n" + max_doc + spaces + sep,
                    CorpusFormat::EndOfText),
               (Docs{max_doc, "short", max_doc}));
      std::string message =
          refusal("e.txt", "  \n" + max_doc + " \n\n" + sep + "\nshort\n" + sep + "\n\n" + max_doc + "y\n" + sep,
                  CorpusFormat::EndOfText);
      VERIFY_CONTAINS(message,
                      (dir / "e.txt").string() + ": document 3 (line 8) is longer than the limit of 100 bytes");
      VERIFY_CONTAINS(message, "split the document");
      // Text after whitespace that went past the limit still counts.
      message = refusal("e.txt", max_doc + spaces + "z" + sep, CorpusFormat::EndOfText);
      VERIFY_CONTAINS(message, "document 1 (line 1) is longer");

      const std::string half(49, 'y');
      QCOMPARE(read("b.txt", max_doc + "  \n \t\nshort\n\n\n" + half + "\n" + half + "y\n" + spaces,
                    CorpusFormat::BlankLine),
               (Docs{max_doc, "short", half + "\n" + half + "y"}));
      message =
          refusal("b.txt", max_doc + "  \n \t\nshort\n\n\n" + half + "y\n" + half + "y\n", CorpusFormat::BlankLine);
      VERIFY_CONTAINS(message, "document 3 (line 6) is longer than the limit of 100 bytes");

      const auto json_line = [](size_t bytes) { return "{\"text\":\"" + std::string(bytes - 11, 'j') + "\"}"; };
      QCOMPARE(read("j.jsonl", "{\"text\":\"a\"}\n" + json_line(limit) + "\n", CorpusFormat::JsonLines),
               (Docs{"a", std::string(limit - 11, 'j')}));
      message = refusal("j.jsonl", "{\"text\":\"a\"}\n\n" + json_line(limit + 1) + "\n", CorpusFormat::JsonLines);
      VERIFY_CONTAINS(message, "the JSON line of document 2 (line 3) is longer than the limit of 100 bytes");
      message = refusal("j.jsonl", "{\"text\":\"a\"}\n\n" + json_line(limit + 50), CorpusFormat::JsonLines);
      VERIFY_CONTAINS(message, "the JSON line of document 2 (line 3) is longer");
    }
  }

  // The UTF-8 check says what loadCorpusFile says, with lines and offsets over the whole text whatever
  // the chunk size (the Latin-1 guess looks at the current chunk, so a file whose guess depends on bytes
  // elsewhere is compared by its place only).
  void utf8ErrorsMatchLoadCorpusFile() {
    const auto dir = testing::makeScratchDir("stream-utf8");
    std::string latin1 = "Once upon a time.\nThe end.\n";
    for (int i = 0; i < 400; ++i) latin1 += i % 3 == 0 ? "\xe9t\xe9 " : "word ";
    std::string stray(5000, 'a');
    stray[3000] = '\n';
    stray[3100] = '\xff';
    std::string crlf_stray;
    for (int i = 0; i < 6; ++i) crlf_stray += "line \xe7\x8c\xab \xf0\x9f\x99\x82\r\n";
    crlf_stray += "ok \x80 bad\r\n";
    struct Case {
      std::string name;
      std::string text;
      std::string place;  // compared alone where the Latin-1 guess may differ
    };
    const std::vector<Case> cases = {
        {"nul.txt", std::string("Once upon a time\0there was", 26), ""},
        {"utf16.txt", std::string("\xff\xfeO\0n\0c\0e\0", 10), ""},
        {"latin1.txt", latin1, ""},
        {"stray.txt", stray, ""},
        {"crlf.txt", crlf_stray, ""},
        {"mixed.txt", "text \x01\x02 then \xc3\x28 here", "byte 0xC3 at line 1 (byte offset 13)"},
        {"cut.txt", "abc\n\xe2\x82", "byte 0xE2 at line 2 (byte offset 4)"},
    };
    for (const Case& c : cases) {
      testing::writeText(dir / c.name, c.text);
      const std::string expected = testing::errorOf([&] { loadCorpusFile(dir / c.name, CorpusFormat::BlankLine); });
      QVERIFY2(!expected.empty(), c.name.c_str());
      for (size_t chunk : {size_t(1), size_t(2), size_t(3), size_t(7), size_t(64), size_t(1) << 20}) {
        const std::string message = testing::errorOf([&] { streamFile(dir / c.name, CorpusFormat::BlankLine, chunk); });
        if (c.place.empty() || chunk > c.text.size()) {
          QCOMPARE(message, expected);
        } else {
          VERIFY_CONTAINS(message, c.place);
          VERIFY_CONTAINS(expected, c.place);
        }
      }
    }
    QVERIFY(contains(testing::errorOf([&] { loadCorpusFile(dir / "crlf.txt", CorpusFormat::Auto); }),
                     "byte 0x80 at line 7 (byte offset 93)"));
    // Compressed: the place is counted over the decompressed text, and the fix decompresses first.
    testing::writeText(dir / "stray.txt.gz", gzipBytes(stray));
    const std::string message = testing::errorOf([&] { streamFile(dir / "stray.txt.gz", CorpusFormat::BlankLine, 7); });
    VERIFY_CONTAINS(message, "byte 0xFF at line 2 (byte offset 3100)");
    VERIFY_CONTAINS(message, "gzip -dc " + (dir / "stray.txt.gz").string() + " | iconv -f LATIN1 -t UTF-8 > " +
                                 (dir / "stray.utf8.txt").string());
  }

  // The fingerprint reads 16 blocks of 4 KiB: a byte changed inside one changes it, as does the mtime;
  // nothing else does. Here the file is 15 * 8 KiB + 4 KiB, so block i starts at i * 8 KiB.
  void fingerprintSamplesBlocksAndMtime() {
    const auto dir = testing::makeScratchDir("stream-fingerprint");
    const fs::path path = dir / "big.txt";
    std::string bytes(15 * 8192 + 4096, 'a');
    std::mt19937 rng(3);
    for (char& c : bytes) c = static_cast<char>('a' + rng() % 26);
    testing::writeText(path, bytes);
    const auto mtime = fs::last_write_time(path);
    const auto fingerprintWith = [&](size_t offset, char byte) {
      std::string changed = bytes;
      changed[offset] = byte;
      testing::writeText(path, changed);
      fs::last_write_time(path, mtime);
      return sourceFingerprint(describeSourceFile(path, CorpusFormat::BlankLine));
    };
    const std::string original = sourceFingerprint(describeSourceFile(path, CorpusFormat::BlankLine));
    QCOMPARE(original.size(), size_t(16));
    QCOMPARE(sourceFingerprint(describeSourceFile(path, CorpusFormat::BlankLine)), original);
    QVERIFY(fingerprintWith(8 * 8192 + 100, '#') != original);    // the middle block
    QVERIFY(fingerprintWith(bytes.size() - 1, '#') != original);  // the last block ends at the end
    QVERIFY(fingerprintWith(15 * 8192, '#') != original);         // and starts 4 KiB before it
    QCOMPARE(fingerprintWith(4096 + 50, '#'), original);          // between blocks 0 and 1: not read
    QCOMPARE(fingerprintWith(0, bytes[0]), original);             // the same bytes again
    fs::last_write_time(path, mtime + std::chrono::seconds(1));
    QVERIFY(sourceFingerprint(describeSourceFile(path, CorpusFormat::BlankLine)) != original);
    // Under 64 KiB the whole file is read.
    const fs::path small = dir / "small.txt";
    testing::writeText(small, bytes.substr(0, 60000));
    const auto small_mtime = fs::last_write_time(small);
    const std::string small_original = sourceFingerprint(describeSourceFile(small, CorpusFormat::BlankLine));
    testing::writeText(small, bytes.substr(0, 30000) + "#" + bytes.substr(30001, 29999));
    fs::last_write_time(small, small_mtime);
    QVERIFY(sourceFingerprint(describeSourceFile(small, CorpusFormat::BlankLine)) != small_original);
    // The path is part of it.
    fs::copy_file(small, dir / "copy.txt");
    fs::last_write_time(dir / "copy.txt", small_mtime);
    QVERIFY(sourceFingerprint(describeSourceFile(dir / "copy.txt", CorpusFormat::BlankLine)) !=
            sourceFingerprint(describeSourceFile(small, CorpusFormat::BlankLine)));
  }

  // Auto: the extension under .gz/.zst decides JSON Lines; otherwise "<|endoftext|>" in the first MiB.
  void autoFormatOfSources() {
    const auto dir = testing::makeScratchDir("stream-auto");
    testing::writeText(dir / "X.JSONL.GZ", gzipBytes("{\"text\": \"a<|endoftext|>\"}\n"));
    QCOMPARE(describeSourceFile(dir / "X.JSONL.GZ", CorpusFormat::Auto).format, CorpusFormat::JsonLines);
    testing::writeText(dir / "v2.txt.zst", zstdBytes(std::string(500000, 'a') + "<|endoftext|>b"));
    QCOMPARE(describeSourceFile(dir / "v2.txt.zst", CorpusFormat::Auto).format, CorpusFormat::EndOfText);
    testing::writeText(dir / "late.txt", std::string((1 << 20) + 10, 'a') + "<|endoftext|>b");
    QCOMPARE(describeSourceFile(dir / "late.txt", CorpusFormat::Auto).format, CorpusFormat::BlankLine);
    QCOMPARE(describeSourceFile(dir / "late.txt", CorpusFormat::EndOfText).format, CorpusFormat::EndOfText);
  }

  // Streaming a ~200 MB file with 1 MiB reads keeps the resident memory within 64 MB of where it started.
  void memoryStaysBoundedOnALargeFile() {
    const auto dir = testing::makeScratchDir("stream-large");
    const fs::path path = dir / "large.txt";
    const int64_t documents = writeLargeCorpus(path, 200);
    const int64_t start_kib = residentKiB();
    QVERIFY(start_kib > 0);
    int64_t peak_kib = start_kib;
    const auto started = std::chrono::steady_clock::now();
    DocumentStream stream(describeSourceFile(path, CorpusFormat::Auto), "text", size_t(256) << 20, size_t(1) << 20);
    std::string doc;
    uint64_t document_bytes = 0;
    try {
      while (stream.next(doc)) {
        document_bytes += doc.size();
        if (stream.documentsRead() % 2000 == 0) peak_kib = std::max(peak_kib, residentKiB());
      }
    } catch (const std::exception& e) {
      fs::remove_all(dir);
      QFAIL(e.what());
    }
    peak_kib = std::max(peak_kib, residentKiB());
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    const double megabytes = static_cast<double>(stream.textBytesRead()) / 1e6;
    qInfo("streamed %.0f MB in %.2f s (%.0f MB/s); resident memory %lld KiB at the start, at most %lld KiB", megabytes,
          seconds, megabytes / seconds, static_cast<long long>(start_kib), static_cast<long long>(peak_kib));
    fs::remove_all(dir);
    QCOMPARE(stream.documentsRead(), documents);
    QCOMPARE(stream.textBytesRead(), stream.sourceBytesRead());
    QVERIFY(document_bytes > uint64_t(190) << 20);
    QVERIFY2(peak_kib - start_kib < 64 * 1024, std::to_string(peak_kib - start_kib).c_str());
  }

  // MB/s of plain, gzip and zstd streaming on a ~200 MB file; only with MIXERLAB_CORPUS_STREAM_BENCH=1
  // (it compresses 400 MB first).
  void throughput() {
    if (qEnvironmentVariableIntValue("MIXERLAB_CORPUS_STREAM_BENCH") != 1) {
      QSKIP("set MIXERLAB_CORPUS_STREAM_BENCH=1 to measure streaming throughput");
    }
    const auto dir = testing::makeScratchDir("stream-bench");
    writeLargeCorpus(dir / "plain.txt", 200);
    std::string text;
    {
      std::ifstream in(dir / "plain.txt", std::ios::binary);
      text.assign(std::istreambuf_iterator<char>(in), {});
    }
    testing::writeText(dir / "text.txt.gz", gzipBytes(text));
    testing::writeText(dir / "text.txt.zst", zstdBytes(text));
    text.clear();
    text.shrink_to_fit();
    for (const char* name : {"plain.txt", "text.txt.gz", "text.txt.zst"}) {
      for (CorpusFormat format : {CorpusFormat::EndOfText, CorpusFormat::BlankLine}) {
        const auto started = std::chrono::steady_clock::now();
        DocumentStream stream(describeSourceFile(dir / name, format));
        std::string doc;
        while (stream.next(doc)) {
        }
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        qInfo("%s as %s: %.0f MB of text in %.2f s: %.0f MB/s", name, corpusFormatName(format).c_str(),
              static_cast<double>(stream.textBytesRead()) / 1e6, seconds,
              static_cast<double>(stream.textBytesRead()) / 1e6 / seconds);
      }
    }
    fs::remove_all(dir);
  }
};

QTEST_APPLESS_MAIN(TestCorpusStream)
#include "test_corpus_stream.moc"
