// Reads a training corpus file and splits it into documents (one story / paragraph / JSON record each).
// Every later stage (tokenizer training, token cache, batching) works on this list of documents. The
// formats and their names live here; the split rules in document_splitter.h, shared by these whole-text
// functions and the streaming reader (document_stream.h, corpus_sources.h).
#pragma once
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace mixerlab {

// EndOfText: documents separated by "<|endoftext|>" (TinyStoriesV2). BlankLine: separated by one or more
// blank lines. JsonLines: one {"text": "..."} object per line. Auto: decided by detectCorpusFormat.
enum class CorpusFormat { Auto, EndOfText, BlankLine, JsonLines };

// "auto", "endoftext", "blank_line", "jsonl"; anything else throws MixerLabError listing the valid names.
CorpusFormat parseCorpusFormat(const std::string& name);
std::string corpusFormatName(CorpusFormat format);

// ".jsonl"/".json" extension -> JsonLines; text containing "<|endoftext|>" -> EndOfText; else BlankLine.
// A table (.csv, .tsv, .parquet, .arrow) throws MixerLabError naming the ways on: no silent one-document corpus.
CorpusFormat detectCorpusFormat(const std::filesystem::path& path, std::string_view contents);

// Splits an in-memory text into trimmed, non-empty documents. CRLF and lone CR become LF first; Unicode
// bytes pass through untouched. BlankLine keeps single newlines inside a document (a line holding only
// spaces/tabs counts as blank). JsonLines errors name "<source_name>:<line number>". Auto is resolved with
// detectCorpusFormat(source_name, contents).
std::vector<std::string> splitCorpusText(std::string_view contents, CorpusFormat format,
                                         const std::string& source_name);

// Reads and splits a file through DocumentStream (document_stream.h): loadCorpusFile's checks, gzip and zstd
// files decompressed, Auto decided by detectSourceFormat (the first MiB of text), documents longer than
// 256 MiB refused. A missing file throws MixerLabError naming the path; a file without any document gives
// an empty vector (callers decide whether that is an error).
std::vector<std::string> readCorpus(const std::filesystem::path& path, CorpusFormat format = CorpusFormat::Auto);

// A corpus file read once, for the caches: its bytes, the hash of those bytes and the resolved format.
// cacheKey() combines hash and format, since the same bytes split differently give other documents.
struct CorpusFile {
  std::filesystem::path path;
  std::string contents;
  std::string content_hash;                       // hashHex of the file bytes (same as hashFileHex(path))
  CorpusFormat format = CorpusFormat::BlankLine;  // never Auto
  std::string cacheKey() const;
  std::vector<std::string> documents() const;  // splitCorpusText(contents, format, path)
};
// Throws MixerLabError naming the path when the file is missing or is not UTF-8 text: UTF-16, binary data
// (a NUL byte), Latin-1 / Windows-1252 text, or a byte that is not UTF-8 (with its line, byte offset and
// the iconv command that converts the file).
CorpusFile loadCorpusFile(const std::filesystem::path& path, CorpusFormat format);

}  // namespace mixerlab
