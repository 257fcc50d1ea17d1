// libFuzzer target: tokenizer input. Arbitrary bytes, invalid UTF-8 included, are encoded (in both
// newline modes) and decoded with a Hugging Face BPE tokenizer.json (MIXERLAB_FUZZ_TOKENIZER,
// default the Llama-style test fixture). SentencePiece models cannot be fuzzed here: MixerLab loads
// libsentencepiece with RTLD_DEEPBIND (to keep its bundled protobuf apart from LibTorch's), which
// AddressSanitizer refuses; see docs/fuzzing.md.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

#include "core/data/token_cache.h"
#include "core/data/tokenizer.h"

namespace {
std::unique_ptr<mixerlab::Tokenizer> g_tokenizer;
}

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const char* path = std::getenv("MIXERLAB_FUZZ_TOKENIZER");
  g_tokenizer = std::make_unique<mixerlab::Tokenizer>(
      mixerlab::Tokenizer::load(path != nullptr ? path : "tests/fixtures/hf_llama_bpe_tokenizer.json"));
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const auto mode : {mixerlab::NewlineMode::Token, mixerlab::NewlineMode::Unk}) {
    const std::vector<int> ids = mixerlab::encodeDocument(*g_tokenizer, text, mode);
    (void)g_tokenizer->decode(ids);
  }
  return 0;
}
