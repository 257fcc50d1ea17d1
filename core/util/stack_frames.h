// LibTorch's c10::Error puts its C++ stack in what(): "Exception raised from ... (most recent call
// first):" and then "frame #0: ..." lines. A user never needs those; the CLI's last-resort handler
// (and anything else that shows an exception's text) strips them here, in a layer without torch.
#pragma once
#include <string>

namespace mixerlab {

// `message` without its "Exception raised from" and "frame #N:" lines (and the blank lines at its
// end), so a c10::Error reads as its one-line message; other text is returned unchanged.
std::string withoutStackFrames(const std::string& message);

}  // namespace mixerlab
