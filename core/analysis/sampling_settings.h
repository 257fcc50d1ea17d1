// The sampling settings of generation (greedy, temperature, top-k, top-p, repetition penalty,
// seed), apart from the sampling code so torch-free callers (the GUI, the CLI parser) can hold them.
#pragma once
#include <cstdint>

namespace mixerlab {

struct SamplingSettings {
  bool greedy = false;              // argmax; ignores temperature, top_k, top_p and the seed
  double temperature = 1.0;         // > 0; logits are divided by it
  int64_t top_k = 0;                // keep the k most likely tokens (0 = all)
  double top_p = 1.0;               // keep the smallest set whose probability reaches p (1 = all)
  double repetition_penalty = 1.0;  // > 1 discourages tokens already present (CTRL-style, as HF)
  uint64_t seed = 0;
};

// Throws MixerLabError naming the setting when a value is out of range.
void validateSampling(const SamplingSettings& settings);

}  // namespace mixerlab
