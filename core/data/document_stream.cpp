// Streaming one corpus file's documents (see document_stream.h).
#include "core/data/document_stream.h"

#include <algorithm>
#include <cstring>

namespace mixerlab {

namespace {

// Held back by the UTF-8 check at most: the start of a 4-byte character.
constexpr size_t kMaxHeldBytes = 3;

std::string decompressCommand(Compression compression) {
  switch (compression) {
    case Compression::Gzip:
      return "gzip -dc";
    case Compression::Zstd:
      return "zstd -dc";
    case Compression::None:
      break;
  }
  return {};
}

SourceFile withResolvedFormat(SourceFile file) {
  if (file.format == CorpusFormat::Auto) file.format = detectSourceFormat(file.path, file.compression);
  return file;
}

}  // namespace

DocumentStream::DocumentStream(const SourceFile& file, std::string json_field, size_t max_document_bytes,
                               size_t read_chunk_bytes)
    : file_(withResolvedFormat(file)),
      source_(openByteSource(file_.path, file_.compression, read_chunk_bytes)),
      utf8_check_(file_.path, decompressCommand(file_.compression)),
      splitter_(file_.format, file_.path.string(), std::move(json_field), max_document_bytes),
      read_chunk_bytes_(std::max<size_t>(read_chunk_bytes, 1)),
      buffer_(new char[read_chunk_bytes_ + kMaxHeldBytes]) {}

bool DocumentStream::next(std::string& document) {
  while (!splitter_.next(document)) {
    if (splitter_.textEnded()) return false;
    if (!addNextChunk()) splitter_.endOfText();
  }
  return true;
}

bool DocumentStream::addNextChunk() {
  while (true) {
    std::memmove(buffer_.get(), buffer_.get() + held_begin_, held_bytes_);
    const size_t got = source_->read(buffer_.get() + held_bytes_, read_chunk_bytes_);
    text_bytes_read_ += got;
    const size_t filled = held_bytes_ + got;
    if (filled == 0) return false;
    held_bytes_ = utf8_check_.check(std::string_view(buffer_.get(), filled), got == 0);
    held_begin_ = filled - held_bytes_;
    if (held_begin_ > 0) {
      splitter_.addChunk(buffer_.get(), held_begin_);
      return true;
    }
  }
}

uint64_t DocumentStream::sourceBytesRead() const { return source_->sourceBytesRead(); }
uint64_t DocumentStream::textBytesRead() const { return text_bytes_read_; }
int64_t DocumentStream::documentsRead() const { return splitter_.documentsReturned(); }

}  // namespace mixerlab
