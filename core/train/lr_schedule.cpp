// Warmup + decay learning-rate schedule (see lr_schedule.h).
#include "core/train/lr_schedule.h"

#include <algorithm>
#include <cmath>

namespace mixerlab {

double learningRateAt(int64_t step, double peak_lr, int64_t warmup_steps, int64_t horizon_steps,
                      const std::string& schedule, double min_lr_ratio) {
  if (warmup_steps > 0 && step < warmup_steps) return peak_lr * static_cast<double>(step + 1) / warmup_steps;
  if (schedule == "constant" || horizon_steps <= warmup_steps) return peak_lr;
  const double progress = std::clamp(
      static_cast<double>(step - warmup_steps) / static_cast<double>(horizon_steps - warmup_steps), 0.0, 1.0);
  const double floor = min_lr_ratio * peak_lr;
  if (schedule == "cosine") return floor + (peak_lr - floor) * 0.5 * (1.0 + std::cos(M_PI * progress));
  return floor + (peak_lr - floor) * (1.0 - progress);
}

}  // namespace mixerlab
