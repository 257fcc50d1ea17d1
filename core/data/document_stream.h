// Reads the documents of one corpus file in order, in bounded memory: a read buffer (read_chunk_bytes)
// and the document being built, never the whole file, so a 40 GB corpus or a folder of compressed JSON
// Lines shards streams through the token-shard preparation. The bytes come decompressed from a
// ByteSource (compressed_reader.h), pass loadCorpusFile's UTF-8 check chunk by chunk
// (utf8_stream_check.h) and are split by the DocumentSplitter (document_splitter.h), so the documents
// are exactly those splitCorpusText gives for the whole decompressed text.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "core/data/compressed_reader.h"
#include "core/data/corpus_sources.h"
#include "core/data/document_splitter.h"
#include "core/data/utf8_stream_check.h"

namespace mixerlab {

class DocumentStream {
 public:
  // Opens the file (MixerLabError naming it when it cannot be). A format of Auto is resolved with
  // detectSourceFormat. JsonLines documents are the string field json_field; a document, or a JSON line,
  // longer than max_document_bytes throws MixerLabError naming the file, the document number (1-based),
  // its line and the fix (split the document).
  DocumentStream(const SourceFile& file, std::string json_field = "text", size_t max_document_bytes = 256u << 20,
                 size_t read_chunk_bytes = 4u << 20);

  // The next document into `document` (reusing its capacity); false at the end of the file. Problems of
  // the text (not UTF-8, malformed JSON, a damaged compressed file) throw MixerLabError with loadCorpusFile's
  // and splitCorpusText's messages; line numbers and byte offsets count over the decompressed text.
  bool next(std::string& document);

  uint64_t sourceBytesRead() const;  // bytes consumed from the file on disk so far (compressed bytes for .gz/.zst)
  uint64_t textBytesRead() const;    // decompressed bytes so far
  int64_t documentsRead() const;     // documents returned so far
  const SourceFile& file() const { return file_; }

 private:
  // Hands the splitter the next checked chunk; false at the end of the text.
  bool addNextChunk();

  SourceFile file_;
  std::unique_ptr<ByteSource> source_;
  Utf8StreamCheck utf8_check_;
  DocumentSplitter splitter_;
  size_t read_chunk_bytes_;
  std::unique_ptr<char[]> buffer_;  // read_chunk_bytes_ plus the bytes held back by the UTF-8 check
  size_t held_begin_ = 0;           // where those held bytes are in buffer_
  size_t held_bytes_ = 0;
  uint64_t text_bytes_read_ = 0;
};

}  // namespace mixerlab
