// The corpus reader's UTF-8 check, over a text one chunk at a time (DocumentStream) or whole
// (loadCorpusFile): refuses UTF-16 text, binary data (a NUL byte), Latin-1 / Windows-1252 text and stray
// bytes, each named with its line and byte offset and with the command that converts the file.
#pragma once
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace mixerlab {

class Utf8StreamCheck {
 public:
  // decompress_command: for a compressed file, the command that writes its text to stdout ("gzip -dc"),
  // piped into the iconv of a suggested fix; empty for a plain file.
  explicit Utf8StreamCheck(std::filesystem::path path, std::string decompress_command = {});

  // Checks `chunk`, the next bytes of the text (the first call gets its start). Returns how many bytes at
  // the end of the chunk start a character that may continue in the next chunk (0 to 3; the whole chunk
  // while fewer than 2 bytes of the text are known, since a UTF-16 mark takes 2): the caller passes them
  // again at the start of the next chunk. at_end: nothing follows, so nothing is held back.
  // Throws MixerLabError at the first problem in the chunk, in loadCorpusFile's order (UTF-16 mark, NUL
  // byte, bad byte) and with its messages; lines and byte offsets count from the start of the text, and
  // the Latin-1 guess looks at this chunk only.
  size_t check(std::string_view chunk, bool at_end);

 private:
  [[noreturn]] void refuseBadByte(std::string_view chunk, size_t bad) const;
  std::string convertCommand(const std::string& encoding) const;

  std::filesystem::path path_;
  std::string decompress_command_;
  uint64_t offset_ = 0;    // bytes of the text before the chunk being checked
  uint64_t newlines_ = 0;  // LF bytes among them
};

}  // namespace mixerlab
