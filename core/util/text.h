// Small string helpers shared by the layers (kept here so no layer writes its own).
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace mixerlab {

inline bool startsWith(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

// `text` when it has at most max_bytes bytes, else its first max_bytes (cut before a UTF-8 character's
// continuation bytes) and "...": for quoting a user's value in a message without echoing all of it.
inline std::string abbreviated(std::string_view text, size_t max_bytes = 40) {
  if (text.size() <= max_bytes) return std::string(text);
  size_t cut = max_bytes;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return std::string(text.substr(0, cut)) + "...";
}

}  // namespace mixerlab
