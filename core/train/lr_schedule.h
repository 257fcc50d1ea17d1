// Learning-rate schedule: linear warmup from 0, then linear or cosine decay to
// min_lr_ratio * peak at the schedule horizon (or constant). Matches the HF Trainer's
// "linear" schedule used by the research when min_lr_ratio = 0.
#pragma once
#include <cstdint>
#include <string>

namespace mixerlab {

// Learning rate for optimizer step `step` (0-based: the LR used by the first update is step 0).
double learningRateAt(int64_t step, double peak_lr, int64_t warmup_steps, int64_t horizon_steps,
                      const std::string& schedule, double min_lr_ratio);

}  // namespace mixerlab
