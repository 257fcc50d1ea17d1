// The incremental document splitter (see document_splitter.h). Each format scans the chunk with memchr /
// find and copies a document's bytes once; only what crosses a chunk edge is remembered: the document
// being built, a start of the separator, a blank-so-far line, a JSON line's start, a CR before an LF.
#include "core/data/document_splitter.h"

#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>

#include "core/util/error.h"
#include "core/util/json_document.h"
#include "core/util/text.h"

namespace mixerlab {

namespace {

constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";

// Trimmed from both ends of every document.
bool isDocumentWhitespace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
// A line of only these is blank (BlankLine).
bool isBlankLineByte(char c) { return c == ' ' || c == '\t'; }

std::string_view withoutDocumentWhitespace(std::string_view text) {
  size_t begin = 0;
  size_t end = text.size();
  while (begin < end && isDocumentWhitespace(text[begin])) ++begin;
  while (end > begin && isDocumentWhitespace(text[end - 1])) --end;
  return text.substr(begin, end - begin);
}

// The length of the longest end of `text` that is a proper start of the separator. The separator holds
// '<' only at its start, so such an end starts at the last '<', and a start that fails to continue
// holds no other start.
static_assert(kEndOfTextSeparator.find('<', 1) == std::string_view::npos);
size_t separatorStartAtEnd(std::string_view text) {
  const size_t window = std::min(text.size(), kEndOfTextSeparator.size() - 1);
  const size_t less_than = text.substr(text.size() - window).rfind('<');
  if (less_than == std::string_view::npos) return 0;
  const std::string_view tail = text.substr(text.size() - window + less_than);
  return kEndOfTextSeparator.substr(0, tail.size()) == tail ? tail.size() : 0;
}

// A JSON field's text with a leading byte-order mark dropped and CRLF / lone CR read as LF (in `storage`
// when it changes).
std::string_view normalizedFieldText(const std::string& text, std::string& storage) {
  std::string_view view = text;
  if (startsWith(view, kByteOrderMark)) view.remove_prefix(kByteOrderMark.size());
  if (view.find('\r') == std::string_view::npos) return view;
  storage.clear();
  for (size_t i = 0; i < view.size(); ++i) {
    if (view[i] != '\r') {
      storage.push_back(view[i]);
      continue;
    }
    storage.push_back('\n');
    if (i + 1 < view.size() && view[i + 1] == '\n') ++i;
  }
  return storage;
}

std::string bytesName(size_t bytes) {
  constexpr size_t kMiB = size_t(1) << 20;
  if (bytes >= kMiB && bytes % kMiB == 0) return std::to_string(bytes / kMiB) + " MiB";
  return std::to_string(bytes) + " bytes";
}

}  // namespace

DocumentSplitter::DocumentSplitter(CorpusFormat format, std::string source_name, std::string json_field,
                                   size_t max_document_bytes)
    : format_(format),
      source_name_(std::move(source_name)),
      json_field_(std::move(json_field)),
      max_document_bytes_(max_document_bytes) {}

void DocumentSplitter::addChunk(char* data, size_t size) {
  if (first_chunk_ && size > 0) {
    first_chunk_ = false;
    if (startsWith(std::string_view(data, size), kByteOrderMark)) {
      data += kByteOrderMark.size();
      size -= kByteOrderMark.size();
    }
  }
  if (skip_next_lf_ && size > 0) {
    skip_next_lf_ = false;
    if (*data == '\n') ++data, --size;
  }
  pos_ = data;
  end_ = data + normalizeLineEnds(data, size);
}

void DocumentSplitter::endOfText() {
  text_ended_ = true;
  pos_ = end_;
}

// CR LF -> LF and a lone CR -> LF, in place; a CR that ends the chunk takes an LF that starts the next.
size_t DocumentSplitter::normalizeLineEnds(char* data, size_t size) {
  char* const end = data + size;
  char* in = static_cast<char*>(std::memchr(data, '\r', size));
  if (in == nullptr) return size;
  char* out = in;
  while (in < end) {  // *in is a CR
    *out++ = '\n';
    if (++in == end) {
      skip_next_lf_ = true;
      break;
    }
    if (*in == '\n') ++in;
    char* next_cr = static_cast<char*>(std::memchr(in, '\r', static_cast<size_t>(end - in)));
    if (next_cr == nullptr) next_cr = end;
    std::memmove(out, in, static_cast<size_t>(next_cr - in));
    out += next_cr - in;
    in = next_cr;
  }
  return static_cast<size_t>(out - data);
}

bool DocumentSplitter::next(std::string& document) {
  switch (format_) {
    case CorpusFormat::EndOfText:
      return nextEndOfText(document);
    case CorpusFormat::JsonLines:
      return nextJsonLine(document);
    case CorpusFormat::BlankLine:
    case CorpusFormat::Auto:
      break;
  }
  return nextBlankLine(document);
}

bool DocumentSplitter::nextEndOfText(std::string& document) {
  constexpr std::string_view separator = kEndOfTextSeparator;
  while (true) {
    if (separator_bytes_held_ > 0) {  // does the separator that ended the last chunk go on here?
      const std::string_view rest = separator.substr(separator_bytes_held_);
      const size_t compared = std::min(rest.size(), static_cast<size_t>(end_ - pos_));
      if (pos_ == end_ && !text_ended_) return false;
      if (compared > 0 && std::memcmp(pos_, rest.data(), compared) == 0) {
        pos_ += compared;
        separator_bytes_held_ += compared;
        if (separator_bytes_held_ < separator.size()) continue;
        separator_bytes_held_ = 0;
        if (finishDocument(document)) return true;
        continue;
      }
      appendToDocument(separator.data(), separator.data() + separator_bytes_held_, line_);
      separator_bytes_held_ = 0;
    }
    if (pos_ == end_) {
      if (!text_ended_ || finished_) return false;
      finished_ = true;
      return finishDocument(document);
    }
    const std::string_view unread(pos_, static_cast<size_t>(end_ - pos_));
    const size_t found = unread.find(separator);
    if (found != std::string_view::npos) {
      consumeIntoDocument(pos_, pos_ + found);
      pos_ += found + separator.size();
      if (finishDocument(document)) return true;
      continue;
    }
    separator_bytes_held_ = separatorStartAtEnd(unread);
    consumeIntoDocument(pos_, end_ - separator_bytes_held_);
    pos_ = end_;
  }
}

bool DocumentSplitter::nextBlankLine(std::string& document) {
  while (true) {
    if (pos_ == end_) {
      if (!text_ended_ || finished_) return false;
      finished_ = true;
      if (!in_document_) return false;
      in_document_ = false;
      return finishDocument(document);
    }
    const char* document_begin = pos_;  // this chunk's part of the current document
    int64_t document_begin_line = line_;
    while (pos_ < end_) {
      char* const newline = static_cast<char*>(std::memchr(pos_, '\n', static_cast<size_t>(end_ - pos_)));
      char* const line_end = newline != nullptr ? newline : end_;
      if (line_blank_so_far_) {
        if (!std::all_of(pos_, line_end, isBlankLineByte)) {
          line_blank_so_far_ = false;
          if (!in_document_) {
            in_document_ = true;
            document_begin = pos_;
            document_begin_line = line_;
          }
        } else if (newline != nullptr && in_document_) {  // a blank line ends the document
          appendToDocument(document_begin, pos_, document_begin_line);
          in_document_ = false;
          pos_ = newline + 1;
          ++line_;
          if (finishDocument(document)) return true;
          continue;
        }
      }
      if (newline == nullptr) {
        pos_ = end_;
        break;
      }
      pos_ = newline + 1;
      ++line_;
      line_blank_so_far_ = true;
    }
    if (in_document_) appendToDocument(document_begin, end_, document_begin_line);
  }
}

bool DocumentSplitter::nextJsonLine(std::string& document) {
  while (true) {
    if (pos_ == end_) {
      if (!text_ended_ || finished_) return false;
      finished_ = true;
      return documentOfJsonLine(json_line_, line_, document);
    }
    char* const newline = static_cast<char*>(std::memchr(pos_, '\n', static_cast<size_t>(end_ - pos_)));
    if (newline == nullptr) {
      json_line_.append(pos_, end_);
      pos_ = end_;
      if (json_line_.size() > max_document_bytes_) {
        refuseLongDocument(line_, "the JSON line of document " + std::to_string(documents_returned_ + 1));
      }
      continue;
    }
    std::string_view line(pos_, static_cast<size_t>(newline - pos_));
    if (!json_line_.empty()) {
      json_line_.append(pos_, newline);
      line = json_line_;
    }
    pos_ = newline + 1;
    const bool found = documentOfJsonLine(line, line_++, document);
    json_line_.clear();
    if (found) return true;
  }
}

bool DocumentSplitter::documentOfJsonLine(std::string_view line, int64_t line_number, std::string& document) {
  if (std::all_of(line.begin(), line.end(), isDocumentWhitespace)) return false;
  if (line.size() > max_document_bytes_) {
    refuseLongDocument(line_number, "the JSON line of document " + std::to_string(documents_returned_ + 1));
  }
  const std::string where = source_name_ + ":" + std::to_string(line_number);
  const std::string field = "\"" + json_field_ + "\"";
  const std::string fix = "each line must be one JSON object with a string field " + field;
  checkJsonLineDepth(line, where);
  nlohmann::json record;
  try {
    record = nlohmann::json::parse(line);
  } catch (const nlohmann::json::exception& e) {
    throw MixerLabError(where + ": malformed JSON line (" + abbreviated(e.what(), 200) + ")", fix);
  }
  if (!record.is_object()) throw MixerLabError(where + ": the line is not a JSON object", fix);
  const auto text_field = record.find(json_field_);
  if (text_field == record.end()) throw MixerLabError(where + ": the object has no " + field + " field", fix);
  if (!text_field->is_string()) throw MixerLabError(where + ": the " + field + " field is not a string", fix);
  std::string storage;
  const std::string_view text =
      withoutDocumentWhitespace(normalizedFieldText(text_field->get_ref<const std::string&>(), storage));
  if (text.empty()) return false;
  document.assign(text);
  ++documents_returned_;
  return true;
}

void DocumentSplitter::appendToDocument(const char* begin, const char* end, int64_t line) {
  if (current_.empty()) {  // leading whitespace is trimmed anyway
    for (; begin < end && isDocumentWhitespace(*begin); ++begin) line += *begin == '\n';
    if (begin == end) return;
    current_first_line_ = line;
  } else if (current_cut_) {
    if (std::all_of(begin, end, isDocumentWhitespace)) return;
    refuseLongDocument(current_first_line_, "document " + std::to_string(documents_returned_ + 1));
  }
  current_.append(begin, end);
  if (current_.size() > max_document_bytes_) {
    // Whitespace past the limit is kept out: it is trimmed if the document ends before more text comes.
    size_t kept = current_.size();
    while (kept > 0 && isDocumentWhitespace(current_[kept - 1])) --kept;
    if (kept > max_document_bytes_) {
      refuseLongDocument(current_first_line_, "document " + std::to_string(documents_returned_ + 1));
    }
    current_.resize(kept);
    current_cut_ = true;
  }
}

void DocumentSplitter::consumeIntoDocument(const char* begin, const char* end) {
  appendToDocument(begin, end, line_);
  line_ += static_cast<int64_t>(countByte(std::string_view(begin, static_cast<size_t>(end - begin)), '\n'));
}

bool DocumentSplitter::finishDocument(std::string& document) {
  size_t kept = current_.size();
  while (kept > 0 && isDocumentWhitespace(current_[kept - 1])) --kept;
  current_.resize(kept);
  current_cut_ = false;
  if (current_.empty()) return false;
  document.swap(current_);
  current_.clear();
  ++documents_returned_;
  return true;
}

void DocumentSplitter::refuseLongDocument(int64_t line, const std::string& what) const {
  throw MixerLabError("corpus file " + source_name_ + ": " + what + " (line " + std::to_string(line) +
                          ") is longer than the limit of " + bytesName(max_document_bytes_),
                      "split the document into smaller ones (a document is held in memory whole while it is read)");
}

}  // namespace mixerlab
