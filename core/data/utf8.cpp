// UTF-8 code point lengths, validation and lossy repair (see utf8.h), following the Unicode table of
// well-formed byte sequences.
#include "core/data/utf8.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace mixerlab::utf8 {
namespace {

bool inRange(unsigned char byte, unsigned char low, unsigned char high) { return byte >= low && byte <= high; }

// How a sequence starting at text[pos] reads: `expected` bytes by its lead byte (0 when the byte cannot
// start one), of which the first `matched` follow the table of well-formed sequences.
struct SequenceScan {
  size_t expected = 0;
  size_t matched = 0;
};

SequenceScan scanSequence(std::string_view text, size_t pos) {
  const auto at = [&](size_t k) -> unsigned char {
    return pos + k < text.size() ? static_cast<unsigned char>(text[pos + k]) : 0;
  };
  const unsigned char lead = at(0);
  if (lead < 0x80) return {1, 1};
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
    return {0, 0};
  }
  if (!inRange(at(1), second_low, second_high)) return {length, 1};
  size_t matched = 2;
  while (matched < length && inRange(at(matched), 0x80, 0xBF)) ++matched;
  return {length, matched};
}

}  // namespace

size_t codePointLength(std::string_view text, size_t pos) {
  const SequenceScan scan = scanSequence(text, pos);
  return scan.expected > 0 && scan.matched == scan.expected ? scan.expected : 1;
}

char32_t codePointAt(std::string_view text, size_t pos, size_t length) {
  const auto lead = static_cast<unsigned char>(text[pos]);
  if (length <= 1) return lead;
  // The lead byte keeps 7 - length payload bits; each continuation byte adds 6.
  char32_t code = lead & (0x7F >> length);
  for (size_t k = 1; k < length; ++k) code = (code << 6) | (static_cast<unsigned char>(text[pos + k]) & 0x3F);
  return code;
}

std::string fromCodePoint(char32_t code_point) {
  std::string out;
  if (code_point < 0x80) {
    out.push_back(static_cast<char>(code_point));
  } else if (code_point < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (code_point >> 6)));
    out.push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  } else if (code_point < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (code_point >> 12)));
    out.push_back(static_cast<char>(0x80 | ((code_point >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (code_point >> 18)));
    out.push_back(static_cast<char>(0x80 | ((code_point >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((code_point >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  }
  return out;
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

std::string toValidLossy(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  for (size_t pos = 0; pos < bytes.size();) {
    const SequenceScan scan = scanSequence(bytes, pos);
    if (scan.expected > 0 && scan.matched == scan.expected) {
      out.append(bytes.substr(pos, scan.expected));
      pos += scan.expected;
    } else {
      out.append("\xEF\xBF\xBD");  // U+FFFD for the maximal subpart: the lead byte and the bytes that fit it
      pos += std::max<size_t>(scan.matched, 1);
    }
  }
  return out;
}

}  // namespace mixerlab::utf8
