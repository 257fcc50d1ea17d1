// libFuzzer target: a checkpoint's trainer_state.json (parseTrainerState) on arbitrary text, the
// file resume reads first. Bad input must give MixerLabError.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/train/checkpoint.h"
#include "core/util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    (void)mixerlab::parseTrainerState(text, "fuzz/trainer_state.json").toJson();
  } catch (const mixerlab::MixerLabError&) {
  }
  return 0;
}
