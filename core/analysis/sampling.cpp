// Next-token choice (see sampling.h).
#include "core/analysis/sampling.h"

#include <algorithm>
#include <unordered_set>

#include <torch/torch.h>

#include "core/util/error.h"

namespace mixerlab {

void validateSampling(const SamplingSettings& s) {
  if (!(s.temperature > 0)) {
    throw MixerLabError("temperature must be > 0, got " + std::to_string(s.temperature), "use --greedy for argmax");
  }
  if (s.top_k < 0) throw MixerLabError("top_k must be >= 0 (0 = no limit), got " + std::to_string(s.top_k));
  if (!(s.top_p > 0 && s.top_p <= 1)) {
    throw MixerLabError("top_p must be in (0, 1], got " + std::to_string(s.top_p), "use 1 for no nucleus filter");
  }
  if (!(s.repetition_penalty >= 1)) {
    throw MixerLabError("repetition_penalty must be >= 1, got " + std::to_string(s.repetition_penalty),
                        "use 1 for no penalty");
  }
}

namespace {

// HF's repetition penalty: a present token's logit is divided by the penalty when positive and
// multiplied by it when negative, so it always becomes less likely.
at::Tensor penalised(const at::Tensor& logits, const std::vector<int64_t>& previous, double penalty) {
  auto out = logits.to(torch::kFloat64).clone();
  if (penalty == 1.0 || previous.empty()) return out;
  std::unordered_set<int64_t> seen(previous.begin(), previous.end());
  auto* values = out.data_ptr<double>();
  const int64_t vocab = out.size(0);
  for (int64_t id : seen) {
    if (id < 0 || id >= vocab) continue;
    values[id] = values[id] > 0 ? values[id] / penalty : values[id] * penalty;
  }
  return out;
}

}  // namespace

at::Tensor samplingDistribution(const at::Tensor& logits, const std::vector<int64_t>& previous,
                                const SamplingSettings& s) {
  auto scores = penalised(logits.reshape({-1}), previous, s.repetition_penalty) / s.temperature;
  auto probs = torch::softmax(scores, 0);
  const int64_t vocab = probs.size(0);
  auto keep = torch::ones({vocab}, torch::kBool);
  auto [sorted, order] = probs.sort(/*dim=*/0, /*descending=*/true);
  if (s.top_k > 0 && s.top_k < vocab) keep.index_fill_(0, order.narrow(0, s.top_k, vocab - s.top_k), false);
  if (s.top_p < 1.0) {
    // Keep the most likely tokens until their mass reaches top_p (the token crossing it included).
    auto before = sorted.cumsum(0) - sorted;  // mass of the more likely tokens
    auto drop = order.masked_select(before >= s.top_p);
    if (drop.numel() > 0) keep.index_fill_(0, drop, false);
  }
  probs = probs.masked_fill(keep.logical_not(), 0.0);
  return probs / probs.sum();
}

TokenChoice chooseToken(const at::Tensor& logits, const std::vector<int64_t>& previous, const SamplingSettings& s,
                        std::mt19937_64& rng) {
  TokenChoice choice;
  const auto model_probs = torch::softmax(penalised(logits.reshape({-1}), previous, s.repetition_penalty), 0);
  if (s.greedy) {
    choice.id = static_cast<int>(model_probs.argmax().item<int64_t>());
  } else {
    const auto dist = samplingDistribution(logits, previous, s);
    const double u = std::uniform_real_distribution<double>(0.0, 1.0)(rng);
    const auto cumulative = dist.cumsum(0);
    const auto* c = cumulative.data_ptr<double>();
    const int64_t vocab = cumulative.size(0);
    int64_t id = std::upper_bound(c, c + vocab, u * c[vocab - 1]) - c;
    id = std::min(id, vocab - 1);
    while (id > 0 && dist[id].item<double>() == 0.0) --id;  // never land on a filtered token
    choice.id = static_cast<int>(id);
  }
  choice.prob = model_probs[choice.id].item<double>();
  const auto [top_probs, top_ids] = model_probs.topk(std::min<int64_t>(5, model_probs.size(0)));
  for (int64_t i = 0; i < top_ids.size(0); ++i) {
    choice.top.emplace_back(static_cast<int>(top_ids[i].item<int64_t>()), top_probs[i].item<double>());
  }
  return choice;
}

}  // namespace mixerlab
