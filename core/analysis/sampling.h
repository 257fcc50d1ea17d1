// Choosing the next token from a model's logits (the research used greedy only; users also want
// temperature, top-k, top-p and a repetition penalty). Pure functions of the logits, the tokens so
// far and a seeded generator, so a fixed seed reproduces a sampled story exactly and every decoder
// (fixed-window, cached, KV-cache, recurrent) shares the same choice rule.
#pragma once
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>

#include "core/analysis/sampling_settings.h"

namespace mixerlab {

struct TokenChoice {
  int id = 0;
  double prob = 0;  // probability of `id` under the model (softmax of the penalised logits, temperature 1)
  std::vector<std::pair<int, double>> top;  // the 5 most likely tokens and their probabilities
};

// The distribution actually sampled from: penalty, temperature, then top-k and top-p filtering,
// renormalised. `logits` is [V] (any float type); `previous` holds the ids generated or prompted so far.
at::Tensor samplingDistribution(const at::Tensor& logits, const std::vector<int64_t>& previous,
                                const SamplingSettings& settings);

// Chooses the next token. `rng` is advanced only when sampling (not for greedy).
TokenChoice chooseToken(const at::Tensor& logits, const std::vector<int64_t>& previous,
                        const SamplingSettings& settings, std::mt19937_64& rng);

}  // namespace mixerlab
