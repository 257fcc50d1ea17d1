// The corpus UTF-8 check, chunk by chunk (see utf8_stream_check.h).
#include "core/data/utf8_stream_check.h"

#include <algorithm>
#include <cstring>

#include "core/data/utf8.h"
#include "core/util/error.h"
#include "core/util/text.h"

namespace mixerlab {
namespace fs = std::filesystem;

namespace {

std::string hexByteName(unsigned char byte) {
  static constexpr char kDigits[] = "0123456789ABCDEF";
  return std::string("0x") + kDigits[byte >> 4] + kDigits[byte & 0xF];
}

// Control bytes that no text file in a single-byte encoding holds (tab, newlines, form feed and escape allowed).
bool isBinaryControlByte(unsigned char byte) {
  return (byte < 0x20 && byte != '\t' && byte != '\n' && byte != '\r' && byte != '\f' && byte != '\v' &&
          byte != 0x1B) ||
         byte == 0x7F;
}

// Whether bytes that are not UTF-8 read as Latin-1 (ISO-8859-1) or Windows-1252 text: no binary control
// bytes, and every byte that is not part of a UTF-8 character is a character of Windows-1252 (which leaves
// 0x81, 0x8D, 0x8F, 0x90 and 0x9D undefined; Latin-1 letters are 0xC0-0xFF).
bool readsAsLatin1(std::string_view text, size_t first_invalid) {
  if (std::any_of(text.begin(), text.end(),
                  [](char c) { return isBinaryControlByte(static_cast<unsigned char>(c)); })) {
    return false;
  }
  for (size_t pos = first_invalid; pos != std::string_view::npos && pos < text.size();) {
    const auto byte = static_cast<unsigned char>(text[pos]);
    if (byte == 0x81 || byte == 0x8D || byte == 0x8F || byte == 0x90 || byte == 0x9D) return false;
    const size_t next = utf8::firstInvalidByte(text.substr(pos + 1));
    pos = next == std::string_view::npos ? next : pos + 1 + next;
  }
  return true;
}

// Bytes a UTF-8 character that starts with `lead` takes, or 0 when `lead` starts none.
size_t utf8LengthFromLead(unsigned char lead) {
  if (lead >= 0xC2 && lead <= 0xDF) return 2;
  if (lead >= 0xE0 && lead <= 0xEF) return 3;
  if (lead >= 0xF0 && lead <= 0xF4) return 4;
  return 0;
}

// Bytes at the end of `chunk` that start a character with fewer bytes than its lead byte asks for: the
// last lead byte among the last 3, if only continuation bytes follow it. Whether they are well-formed is
// checked once the rest has come (or at the end, where the same bytes are then checked alone).
size_t unfinishedCharacterBytes(std::string_view chunk) {
  for (size_t back = 1; back <= std::min<size_t>(3, chunk.size()); ++back) {
    const auto byte = static_cast<unsigned char>(chunk[chunk.size() - back]);
    if (byte < 0x80) return 0;
    if (byte >= 0xC0) return utf8LengthFromLead(byte) > back ? back : 0;
  }
  return 0;
}

constexpr std::string_view kRepointCorpus = ", and point the corpus at the new file";

}  // namespace

Utf8StreamCheck::Utf8StreamCheck(fs::path path, std::string decompress_command)
    : path_(std::move(path)), decompress_command_(std::move(decompress_command)) {}

size_t Utf8StreamCheck::check(std::string_view chunk, bool at_end) {
  const std::string name = path_.string();
  if (offset_ == 0) {
    if (chunk.size() < 2 && !at_end) return chunk.size();
    if (chunk.rfind("\xFF\xFE", 0) == 0 || chunk.rfind("\xFE\xFF", 0) == 0) {
      throw MixerLabError(
          "corpus file " + name + " is UTF-16 text (it starts with a UTF-16 byte-order mark), not UTF-8",
          "convert it: " + convertCommand("UTF-16") + std::string(kRepointCorpus));
    }
  }
  const size_t held = at_end ? 0 : unfinishedCharacterBytes(chunk);
  const std::string_view whole = chunk.substr(0, chunk.size() - held);
  if (const void* nul = std::memchr(whole.data(), '\0', whole.size())) {
    const auto at = static_cast<uint64_t>(static_cast<const char*>(nul) - whole.data());
    throw MixerLabError("corpus file " + name + " is not UTF-8 text (binary data: a NUL byte at byte offset " +
                            std::to_string(offset_ + at) + ")",
                        "point the corpus at a text file: plain text, JSON Lines or a blank-line separated file");
  }
  const size_t bad = utf8::firstInvalidByte(whole);
  if (bad != std::string_view::npos) refuseBadByte(chunk, bad);
  newlines_ += countByte(whole, '\n');
  offset_ += whole.size();
  return held;
}

void Utf8StreamCheck::refuseBadByte(std::string_view chunk, size_t bad) const {
  const std::string name = path_.string();
  const uint64_t line = 1 + newlines_ + countByte(chunk.substr(0, bad), '\n');
  const std::string place = "byte " + hexByteName(static_cast<unsigned char>(chunk[bad])) + " at line " +
                            std::to_string(line) + " (byte offset " + std::to_string(offset_ + bad) + ")";
  if (readsAsLatin1(chunk, bad)) {
    throw MixerLabError("corpus file " + name + " is not UTF-8: it looks like Latin-1 (ISO-8859-1) or Windows-1252 " +
                            "text (" + place + " is not UTF-8)",
                        "convert it: " + convertCommand("LATIN1") + " (-f CP1252 for Windows text with curly quotes)" +
                            std::string(kRepointCorpus));
  }
  throw MixerLabError("corpus file " + name + " is not valid UTF-8: " + place + " does not start a UTF-8 character",
                      "convert it from its encoding: " + convertCommand("<encoding>") + std::string(kRepointCorpus) +
                          "; or remove the stray bytes at line " + std::to_string(line));
}

// "iconv -f ENC -t UTF-8 a.txt > a.utf8.txt"; for a compressed file "gzip -dc a.jsonl.gz | iconv ... > a.utf8.jsonl".
std::string Utf8StreamCheck::convertCommand(const std::string& encoding) const {
  const std::string name = path_.string();
  const fs::path text_name = decompress_command_.empty() ? path_ : path_.parent_path() / path_.stem();
  const std::string converted =
      (text_name.parent_path() / (text_name.stem().string() + ".utf8" + text_name.extension().string())).string();
  const std::string iconv = "iconv -f " + encoding + " -t UTF-8";
  if (decompress_command_.empty()) return iconv + " " + name + " > " + converted;
  return decompress_command_ + " " + name + " | " + iconv + " > " + converted;
}

}  // namespace mixerlab
