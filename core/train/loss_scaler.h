// Dynamic loss scaling for fp16 training: the loss is multiplied by a scale before backward so small
// gradients do not flush to zero in fp16, the gradients are divided by it before clipping, and a
// step whose gradients hold inf/NaN (the scale was too large) is skipped and the scale halved. After
// growth_interval finite steps in a row the scale doubles again. Its state is part of the trainer
// state, so a resumed run scales exactly as an uninterrupted one.
#pragma once
#include <cstdint>
#include <vector>

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>

namespace mixerlab {

struct LossScalerSettings {
  double initial_scale = 65536.0;  // 2^16, as PyTorch's GradScaler and the HF Trainer start
  double growth_factor = 2.0;
  double backoff_factor = 0.5;
  int64_t growth_interval = 2000;  // finite steps in a row before the scale grows
  // Below this the run is failing, not scaling: every step overflows even at a tiny scale.
  double min_scale = 1.0 / 16777216.0;  // 2^-24
};

struct LossScalerState {
  double scale = 65536.0;
  int64_t finite_steps = 0;   // finite steps since the last growth or backoff
  int64_t skipped_steps = 0;  // steps skipped for non-finite gradients, over the whole run
  nlohmann::json toJson() const;
  static LossScalerState fromJson(const nlohmann::json& j);
  bool operator==(const LossScalerState& o) const {
    return scale == o.scale && finite_steps == o.finite_steps && skipped_steps == o.skipped_steps;
  }
};

class DynamicLossScaler {
 public:
  explicit DynamicLossScaler(LossScalerSettings settings, const LossScalerState* restored = nullptr);

  double scale() const { return state_.scale; }
  const LossScalerState& state() const { return state_; }
  const LossScalerSettings& settings() const { return settings_; }
  at::Tensor scaled(const at::Tensor& loss) const { return loss * state_.scale; }

  // Divides every defined gradient by the scale in place and returns whether all of them are
  // finite. Call once per optimizer step, after backward (and after any data-parallel average).
  bool unscaleAndCheck(const std::vector<at::Tensor>& parameters) const;
  // Records the step's outcome: non-finite backs the scale off (the caller skips the update),
  // finite counts toward growth. Throws MixerLabError when the scale falls below min_scale.
  void update(bool gradients_finite);

 private:
  LossScalerSettings settings_;
  LossScalerState state_;
};

}  // namespace mixerlab
