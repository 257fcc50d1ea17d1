// Removing LibTorch stack frames from error text (see stack_frames.h).
#include "core/util/stack_frames.h"

#include <sstream>

namespace mixerlab {

std::string withoutStackFrames(const std::string& message) {
  std::istringstream lines(message);
  std::string line, kept;
  while (std::getline(lines, line)) {
    const size_t start = line.find_first_not_of(" \t");
    const std::string body = start == std::string::npos ? "" : line.substr(start);
    if (body.rfind("Exception raised from ", 0) == 0 || body.rfind("frame #", 0) == 0) continue;
    kept += line + "\n";
  }
  while (!kept.empty() && (kept.back() == '\n' || kept.back() == ' ')) kept.pop_back();
  return kept;
}

}  // namespace mixerlab
