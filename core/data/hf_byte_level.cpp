// The byte-level table and its inverse (see hf_byte_level.h), built once from the rule.
#include "core/data/hf_byte_level.h"

#include <array>

#include "core/data/utf8.h"

namespace mixerlab::hf {
namespace {

bool standsForItself(unsigned value) {
  return (value >= '!' && value <= '~') || (value >= 0xA1 && value <= 0xAC) || (value >= 0xAE && value <= 0xFF);
}

// Both directions: byte -> code point, and code point (all below U+0144) -> byte or -1.
struct ByteLevelTable {
  std::array<char32_t, 256> code_point{};
  std::array<std::string, 256> utf8{};
  std::array<int, 0x200> byte_of{};

  ByteLevelTable() {
    byte_of.fill(-1);
    char32_t next_stand_in = 0x100;
    for (unsigned value = 0; value < 256; ++value) {
      code_point[value] = standsForItself(value) ? value : next_stand_in++;
      byte_of[code_point[value]] = static_cast<int>(value);
      utf8[value] = utf8::fromCodePoint(code_point[value]);
    }
  }
};

const ByteLevelTable& byteLevelTable() {
  static const ByteLevelTable instance;
  return instance;
}

}  // namespace

char32_t byteLevelCodePoint(unsigned char value) { return byteLevelTable().code_point[value]; }

std::string toByteLevel(std::string_view bytes) {
  const ByteLevelTable& t = byteLevelTable();
  std::string out;
  out.reserve(bytes.size() * 2);
  for (char byte : bytes) out += t.utf8[static_cast<unsigned char>(byte)];
  return out;
}

void appendByteLevelBytes(std::string_view token, std::string& bytes) {
  const ByteLevelTable& t = byteLevelTable();
  const size_t start = bytes.size();
  for (size_t pos = 0; pos < token.size();) {
    const size_t length = utf8::codePointLength(token, pos);
    const char32_t code = utf8::codePointAt(token, pos, length);
    const bool malformed = length == 1 && static_cast<unsigned char>(token[pos]) >= 0x80;
    if (malformed || code >= t.byte_of.size() || t.byte_of[code] < 0) {
      bytes.resize(start);  // a character outside the table: the token stands for its own bytes
      bytes.append(token);
      return;
    }
    bytes.push_back(static_cast<char>(t.byte_of[code]));
    pos += length;
  }
}

}  // namespace mixerlab::hf
