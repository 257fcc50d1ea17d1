// Training budget (see train_cadence.h).
#include "core/train/train_cadence.h"

#include <algorithm>

namespace mixerlab {

double TrainBudget::fractionDone(const TrainerState& s) const {
  double f = 0;
  if (train.max_steps > 0) f = std::max(f, static_cast<double>(s.step) / train.max_steps);
  if (train.max_tokens > 0) f = std::max(f, static_cast<double>(s.tokens) / train.max_tokens);
  if (train.max_wall_s > 0) f = std::max(f, s.wall_s / train.max_wall_s);
  if (epoch_horizon_steps > 0) f = std::max(f, static_cast<double>(s.step) / epoch_horizon_steps);
  return std::min(f, 1.0);
}

}  // namespace mixerlab
