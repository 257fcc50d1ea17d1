// MixerLab's user-facing error: what went wrong (naming the file/field/thing) and how to fix it.
// Everything the CLI or GUI shows to a user for bad input is one of these.
#pragma once
#include <stdexcept>
#include <string>

namespace mixerlab {

class MixerLabError : public std::runtime_error {
 public:
  MixerLabError(const std::string& what, const std::string& fix = {})
      : std::runtime_error(fix.empty() ? what : what + " (fix: " + fix + ")"), problem_(what), fix_(fix) {}
  const std::string& problem() const { return problem_; }
  const std::string& fix() const { return fix_; }

 private:
  std::string problem_;
  std::string fix_;
};

}  // namespace mixerlab
