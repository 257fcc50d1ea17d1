// The decompressed bytes of one corpus file, a buffer at a time: plain files through read(2), gzip (every
// member of a multi-member file, as `cat a.gz b.gz` makes) through zlib, zstd (every frame) through
// libzstd. DocumentStream reads a corpus through one of these, so a 40 GB corpus never sits in memory.
#pragma once
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>

#include "core/data/corpus_sources.h"

namespace mixerlab {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Up to `capacity` (> 0) decompressed bytes into `buffer`; 0 only at the end of the data (and on every
  // call after it). A damaged or truncated compressed file, or a read error, throws MixerLabError naming
  // the file.
  virtual size_t read(char* buffer, size_t capacity) = 0;
  // Bytes taken from the file on disk so far (compressed bytes for a compressed file).
  uint64_t sourceBytesRead() const { return source_bytes_read_; }

 protected:
  uint64_t source_bytes_read_ = 0;
};

// Opens `path` as `compression`. compressed_buffer_bytes: how many bytes of a compressed file are read from
// disk at a time (a plain file is read straight into the caller's buffer).
std::unique_ptr<ByteSource> openByteSource(const std::filesystem::path& path, Compression compression,
                                           size_t compressed_buffer_bytes);

}  // namespace mixerlab
