// libFuzzer target: the safetensors reader (parseSafetensors) on arbitrary bytes: header length,
// JSON header, dtypes, shapes, data offsets and the checksum. Bad input must give MixerLabError.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/models/safetensors.h"
#include "core/util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  try {
    mixerlab::parseSafetensors(bytes, "fuzz.safetensors");
  } catch (const mixerlab::MixerLabError&) {
  }
  return 0;
}
