// UTF-8 code point lengths and validation (see utf8.h), following the Unicode table of well-formed
// byte sequences.
#include "core/data/utf8.h"

#include <cstdint>
#include <cstring>

namespace mixerlab::utf8 {
namespace {

bool inRange(unsigned char byte, unsigned char low, unsigned char high) { return byte >= low && byte <= high; }

}  // namespace

size_t codePointLength(std::string_view text, size_t pos) {
  const auto at = [&](size_t k) -> unsigned char {
    return pos + k < text.size() ? static_cast<unsigned char>(text[pos + k]) : 0;
  };
  const unsigned char lead = at(0);
  if (lead < 0x80) return 1;
  // The allowed range of the second byte depends on the lead byte; later bytes are always 80..BF.
  size_t length = 0;
  unsigned char second_low = 0x80, second_high = 0xBF;
  if (inRange(lead, 0xC2, 0xDF)) {
    length = 2;
  } else if (lead == 0xE0) {
    length = 3, second_low = 0xA0;
  } else if (inRange(lead, 0xE1, 0xEC) || inRange(lead, 0xEE, 0xEF)) {
    length = 3;
  } else if (lead == 0xED) {
    length = 3, second_high = 0x9F;
  } else if (lead == 0xF0) {
    length = 4, second_low = 0x90;
  } else if (inRange(lead, 0xF1, 0xF3)) {
    length = 4;
  } else if (lead == 0xF4) {
    length = 4, second_high = 0x8F;
  } else {
    return 1;
  }
  if (!inRange(at(1), second_low, second_high)) return 1;
  for (size_t k = 2; k < length; ++k) {
    if (!inRange(at(k), 0x80, 0xBF)) return 1;
  }
  return length;
}

char32_t codePointAt(std::string_view text, size_t pos, size_t length) {
  const auto lead = static_cast<unsigned char>(text[pos]);
  if (length <= 1) return lead;
  // The lead byte keeps 7 - length payload bits; each continuation byte adds 6.
  char32_t code = lead & (0x7F >> length);
  for (size_t k = 1; k < length; ++k) code = (code << 6) | (static_cast<unsigned char>(text[pos + k]) & 0x3F);
  return code;
}

size_t firstInvalidByte(std::string_view bytes) {
  for (size_t pos = 0; pos < bytes.size();) {
    if (static_cast<unsigned char>(bytes[pos]) < 0x80) {  // ASCII, most of any corpus: 8 bytes at a time
      ++pos;
      for (uint64_t word = 0; pos + sizeof word <= bytes.size(); pos += sizeof word) {
        std::memcpy(&word, bytes.data() + pos, sizeof word);
        if ((word & 0x8080808080808080ull) != 0) break;
      }
      continue;
    }
    const size_t length = codePointLength(bytes, pos);
    if (length == 1) return pos;
    pos += length;
  }
  return std::string_view::npos;
}

bool isValid(std::string_view bytes) { return firstInvalidByte(bytes) == std::string_view::npos; }

}  // namespace mixerlab::utf8
