// Plain, gzip and zstd byte sources for the corpus reader (see compressed_reader.h).
#include "core/data/compressed_reader.h"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <string>
#include <vector>

#include "core/util/error.h"

namespace mixerlab {
namespace fs = std::filesystem;

namespace {

// An open file descriptor, read front to back.
class CorpusFileHandle {
 public:
  explicit CorpusFileHandle(const fs::path& path) : path_(path) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) {
      throw MixerLabError("cannot open corpus file " + path.string() + ": " + std::strerror(errno),
                          "check that the file exists and is readable");
    }
    ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
  }
  ~CorpusFileHandle() { ::close(fd_); }
  CorpusFileHandle(const CorpusFileHandle&) = delete;
  CorpusFileHandle& operator=(const CorpusFileHandle&) = delete;

  // Up to `capacity` bytes; 0 at the end of the file.
  size_t readSome(char* buffer, size_t capacity) {
    while (true) {
      const ssize_t got = ::read(fd_, buffer, capacity);
      if (got >= 0) return static_cast<size_t>(got);
      if (errno == EINTR) continue;
      throw MixerLabError("cannot read corpus file " + path_.string() + ": " + std::strerror(errno),
                          "check the disk and the file (copy it again if the disk reports errors)");
    }
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
  int fd_ = -1;
};

class PlainSource : public ByteSource {
 public:
  explicit PlainSource(const fs::path& path) : file_(path) {}
  size_t read(char* buffer, size_t capacity) override {
    const size_t got = file_.readSome(buffer, capacity);
    source_bytes_read_ += got;
    return got;
  }

 private:
  CorpusFileHandle file_;
};

[[noreturn]] void refuseCompressedFile(const fs::path& path, const std::string& kind, bool truncated,
                                       const std::string& detail, uint64_t offset, const std::string& test_command) {
  const std::string name = path.string();
  const std::string what = truncated ? "is a truncated " + kind + " file: it ends inside compressed data"
                                     : "is a damaged " + kind + " file (" + detail + ")";
  throw MixerLabError("corpus file " + name + " " + what + ", after " + std::to_string(offset) + " bytes",
                      "copy or download the file again (`" + test_command + " " + name + "` tests a file)");
}

// gzip through zlib. A member's end is followed by the next member (`cat a.gz b.gz`) or by the end of the
// file; anything else is damage.
class GzipSource : public ByteSource {
 public:
  GzipSource(const fs::path& path, size_t buffer_bytes) : file_(path), input_(std::max<size_t>(buffer_bytes, 1)) {
    if (inflateInit2(&stream_, 16 + MAX_WBITS) != Z_OK) {
      throw MixerLabError("cannot start gzip decompression of " + path.string(), "free some memory and try again");
    }
  }
  ~GzipSource() override { inflateEnd(&stream_); }

  size_t read(char* buffer, size_t capacity) override {
    const auto room = static_cast<uInt>(std::min<size_t>(capacity, UINT_MAX));
    stream_.next_out = reinterpret_cast<Bytef*>(buffer);
    stream_.avail_out = room;
    while (stream_.avail_out == room) {
      if (stream_.avail_in == 0 && !output_pending_) {
        if (at_file_end_) {
          if (member_started_) refuse(true, "");
          return 0;
        }
        const size_t got = file_.readSome(input_.data(), std::min<size_t>(input_.size(), UINT_MAX));
        source_bytes_read_ += got;
        at_file_end_ = got == 0;
        stream_.next_in = reinterpret_cast<Bytef*>(input_.data());
        stream_.avail_in = static_cast<uInt>(got);
        continue;
      }
      const int status = inflate(&stream_, Z_NO_FLUSH);
      if (status == Z_STREAM_END) {
        inflateReset(&stream_);
        member_started_ = false;
      } else if (status == Z_OK) {
        member_started_ = true;
      } else if (status != Z_BUF_ERROR || stream_.avail_in > 0) {
        refuse(false, stream_.msg != nullptr ? stream_.msg : "zlib error " + std::to_string(status));
      }
      output_pending_ = stream_.avail_out == 0;
    }
    return room - stream_.avail_out;
  }

 private:
  [[noreturn]] void refuse(bool truncated, const std::string& detail) const {
    refuseCompressedFile(file_.path(), "gzip", truncated, detail, source_bytes_read_ - stream_.avail_in, "gzip -t");
  }

  CorpusFileHandle file_;
  std::vector<char> input_;
  z_stream stream_{};
  bool at_file_end_ = false;
  bool member_started_ = false;  // bytes of a member were taken and its end not reached
  bool output_pending_ = false;  // the last inflate filled the output: it may hold more without new input
};

// zstd through libzstd's streaming decoder, which reads frame after frame.
class ZstdSource : public ByteSource {
 public:
  ZstdSource(const fs::path& path, size_t buffer_bytes)
      : file_(path), input_(std::max<size_t>(buffer_bytes, 1)), context_(ZSTD_createDCtx()) {
    if (context_ == nullptr) {
      throw MixerLabError("cannot start zstd decompression of " + path.string(), "free some memory and try again");
    }
  }
  ~ZstdSource() override { ZSTD_freeDCtx(context_); }

  size_t read(char* buffer, size_t capacity) override {
    ZSTD_outBuffer out{buffer, capacity, 0};
    while (out.pos == 0) {
      if (in_.pos == in_.size && !output_pending_) {
        if (at_file_end_) {
          if (frame_unfinished_) refuse(true, "");
          return 0;
        }
        const size_t got = file_.readSome(input_.data(), input_.size());
        source_bytes_read_ += got;
        at_file_end_ = got == 0;
        in_ = ZSTD_inBuffer{input_.data(), got, 0};
        continue;
      }
      const size_t in_before = in_.pos;
      const size_t out_before = out.pos;
      const size_t status = ZSTD_decompressStream(context_, &out, &in_);
      if (ZSTD_isError(status)) refuse(false, ZSTD_getErrorName(status));
      // A call without progress (flushing at a frame's end) answers for the next frame: not a frame begun.
      if (in_.pos != in_before || out.pos != out_before) frame_unfinished_ = status != 0;
      output_pending_ = out.pos == out.size;
    }
    return out.pos;
  }

 private:
  [[noreturn]] void refuse(bool truncated, const std::string& detail) const {
    refuseCompressedFile(file_.path(), "zstd", truncated, detail, source_bytes_read_ - (in_.size - in_.pos), "zstd -t");
  }

  CorpusFileHandle file_;
  std::vector<char> input_;
  ZSTD_DCtx* context_;
  ZSTD_inBuffer in_{nullptr, 0, 0};
  bool at_file_end_ = false;
  bool frame_unfinished_ = false;  // the decoder is inside a frame (0 from ZSTD_decompressStream: a frame ended)
  bool output_pending_ = false;    // the last call filled the output: it may hold more without new input
};

}  // namespace

std::unique_ptr<ByteSource> openByteSource(const fs::path& path, Compression compression,
                                           size_t compressed_buffer_bytes) {
  switch (compression) {
    case Compression::Gzip:
      return std::make_unique<GzipSource>(path, compressed_buffer_bytes);
    case Compression::Zstd:
      return std::make_unique<ZstdSource>(path, compressed_buffer_bytes);
    case Compression::None:
      break;
  }
  return std::make_unique<PlainSource>(path);
}

}  // namespace mixerlab
