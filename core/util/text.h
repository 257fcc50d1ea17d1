// Small string helpers shared by the layers (kept here so no layer writes its own).
#pragma once
#include <string_view>

namespace mixerlab {

inline bool startsWith(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

}  // namespace mixerlab
