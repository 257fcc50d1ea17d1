// Shell quoting (see shell_quote.h).
#include "core/util/shell_quote.h"

namespace mixerlab {

std::string shellQuote(const std::string& word) {
  std::string out = "'";
  for (const char c : word) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

}  // namespace mixerlab
