// libFuzzer target: the project-file parser (parseProjectText) on arbitrary text. A MixerLabError
// (a clear message) is the expected answer to bad input; any other exception, crash or sanitizer
// report is a bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/config/project_config.h"
#include "core/util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    mixerlab::parseProjectText(text, "/nonexistent/fuzz/project.json");
  } catch (const mixerlab::MixerLabError&) {
  }
  return 0;
}
