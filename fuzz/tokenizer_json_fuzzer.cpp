// libFuzzer target: the Hugging Face tokenizer.json reader (HfBpeTokenizer::fromJson) on arbitrary
// text, and, when a file reads, an encode and decode with it. Bad input must give MixerLabError.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/data/hf_bpe_tokenizer.h"
#include "core/util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const auto tokenizer = mixerlab::HfBpeTokenizer::fromJson(text, "fuzz/tokenizer.json");
    (void)tokenizer.decode(tokenizer.encode("Once upon a time \xff\n there was"));
  } catch (const mixerlab::MixerLabError&) {
  }
  return 0;
}
