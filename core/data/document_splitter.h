// Splits a corpus text into documents as its chunks arrive, holding only the document being built: the one
// owner of the split rules. splitCorpusText feeds it a whole text, DocumentStream a file one read buffer at
// a time, and both get the same documents whatever the chunk edges.
//
// Rules: a UTF-8 byte-order mark at the start is dropped; CRLF and lone CR read as LF. EndOfText: documents
// are separated by "<|endoftext|>". BlankLine: separated by lines holding only spaces and tabs (single
// newlines stay inside a document). JsonLines: the string field `json_field` of the JSON object on each
// non-blank line (its CRLF / CR read as LF too). Every document is trimmed of ASCII whitespace, and empty
// ones are dropped. Line numbers count LF after that normalisation, from 1.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/data/corpus_reader.h"

namespace mixerlab {

inline constexpr std::string_view kEndOfTextSeparator = "<|endoftext|>";

class DocumentSplitter {
 public:
  // source_name names the text in messages ("<source_name>:<line>" for JSON errors). A document (or JSON
  // line) longer than max_document_bytes throws MixerLabError naming the source, the document's number and
  // its first line, and the fix. Auto reads as BlankLine (resolve it first).
  DocumentSplitter(CorpusFormat format, std::string source_name, std::string json_field, size_t max_document_bytes);

  // The next chunk of the text, after next() returned false. The splitter rewrites its line ends in place
  // and reads it until next() returns false again, so it must stay valid and unchanged until then. The
  // first chunk holds the text's first 3 bytes, or all of it.
  void addChunk(char* data, size_t size);
  // No chunk follows.
  void endOfText();
  bool textEnded() const { return text_ended_; }

  // The next document complete within the chunks given so far, into `document` (its capacity is reused).
  // False when the splitter needs the next chunk or, after endOfText(), when no document is left.
  bool next(std::string& document);
  int64_t documentsReturned() const { return documents_returned_; }

 private:
  size_t normalizeLineEnds(char* data, size_t size);
  bool nextEndOfText(std::string& document);
  bool nextBlankLine(std::string& document);
  bool nextJsonLine(std::string& document);
  bool documentOfJsonLine(std::string_view line, int64_t line_number, std::string& document);

  // The document being built: takes [begin, end), whose first byte is on line `line`.
  void appendToDocument(const char* begin, const char* end, int64_t line);
  // Appends [begin, end) and moves the line count past it.
  void consumeIntoDocument(const char* begin, const char* end);
  bool finishDocument(std::string& document);
  [[noreturn]] void refuseLongDocument(int64_t line, const std::string& what) const;

  CorpusFormat format_;
  std::string source_name_;
  std::string json_field_;
  size_t max_document_bytes_;

  char* pos_ = nullptr;  // the unread part of the current chunk
  char* end_ = nullptr;
  int64_t line_ = 1;  // the line pos_ is on
  bool first_chunk_ = true;
  bool skip_next_lf_ = false;  // the last chunk ended with CR: an LF starting the next belongs to it
  bool text_ended_ = false;
  bool finished_ = false;  // after endOfText, the last document was handed out
  int64_t documents_returned_ = 0;

  std::string current_;             // the document being built, leading whitespace left out
  int64_t current_first_line_ = 0;  // the line of its first byte
  bool current_cut_ = false;        // whitespace past max_document_bytes was dropped: more text would overflow it

  size_t separator_bytes_held_ = 0;  // EndOfText: a start of the separator ends the text read so far
  bool in_document_ = false;         // BlankLine: a non-blank line was read since the last blank one
  bool line_blank_so_far_ = true;    // BlankLine: the current line holds only spaces and tabs so far
  std::string json_line_;            // JsonLines: the start of a line begun in an earlier chunk
};

}  // namespace mixerlab
