// Dynamic loss scaling (see loss_scaler.h).
#include "core/train/loss_scaler.h"

#include <cmath>
#include <string>

#include <torch/torch.h>

#include "core/util/error.h"

namespace mixerlab {

nlohmann::json LossScalerState::toJson() const {
  return {{"scale", scale}, {"finite_steps", finite_steps}, {"skipped_steps", skipped_steps}};
}

LossScalerState LossScalerState::fromJson(const nlohmann::json& j) {
  LossScalerState s;
  s.scale = j.at("scale").get<double>();
  s.finite_steps = j.at("finite_steps").get<int64_t>();
  s.skipped_steps = j.at("skipped_steps").get<int64_t>();
  if (!(s.scale > 0) || !std::isfinite(s.scale) || s.finite_steps < 0 || s.skipped_steps < 0) {
    throw MixerLabError("trainer state holds an invalid loss scaler " + j.dump(), "resume from an earlier checkpoint");
  }
  return s;
}

DynamicLossScaler::DynamicLossScaler(LossScalerSettings settings, const LossScalerState* restored)
    : settings_(settings) {
  if (restored) {
    state_ = *restored;
  } else {
    state_.scale = settings_.initial_scale;
  }
}

bool DynamicLossScaler::unscaleAndCheck(const std::vector<at::Tensor>& parameters) const {
  torch::NoGradGuard no_grad;
  const double inverse = 1.0 / state_.scale;
  std::vector<at::Tensor> finite_flags;
  for (const auto& p : parameters) {
    at::Tensor grad = p.grad();
    if (!grad.defined()) continue;
    grad.mul_(inverse);
    finite_flags.push_back(torch::isfinite(grad).all());
  }
  // One host sync for the whole model instead of one per parameter.
  return finite_flags.empty() || torch::stack(finite_flags).all().item<bool>();
}

void DynamicLossScaler::update(bool gradients_finite) {
  if (!gradients_finite) {
    state_.scale *= settings_.backoff_factor;
    state_.finite_steps = 0;
    state_.skipped_steps += 1;
    if (state_.scale < settings_.min_scale) {
      throw MixerLabError("the fp16 loss scale fell to " + std::to_string(state_.scale) +
                              ": the gradients overflow at every scale, so the run has diverged",
                          "lower train.learning_rate or use train.precision \"bf16\" (or \"fp32\"), then --resume");
    }
    return;
  }
  state_.finite_steps += 1;
  if (state_.finite_steps >= settings_.growth_interval) {
    state_.scale *= settings_.growth_factor;
    state_.finite_steps = 0;
  }
}

}  // namespace mixerlab
