// When the training loop stops and what it does after a step: the budget (steps, tokens or
// wall-clock, whichever is reached first; a time-only budget also ends at its epoch horizon) and
// the cadence of metrics records, evaluations and checkpoints. Pure arithmetic on the config and
// the trainer state.
#pragma once
#include <cstdint>

#include "core/config/train_config.h"
#include "core/train/checkpoint.h"

namespace mixerlab {

struct TrainBudget {
  const TrainConfig& train;
  // The schedule horizon when it comes from schedule_epochs (a time-only budget): the run stops
  // there too, as the HF Trainer stops after num_train_epochs; 0 = no such limit.
  int64_t epoch_horizon_steps = 0;
  double fractionDone(const TrainerState& state) const;  // of the tightest budget, in [0, 1]
  bool reached(const TrainerState& state) const { return fractionDone(state) >= 1.0; }
};

// After optimizer step `step` (1-based count of completed steps); `final_step`: the budget is reached.
struct TrainCadence {
  const TrainConfig& train;
  bool logDue(int64_t step, bool final_step) const { return step % train.log_every == 0 || final_step; }
  bool evalDue(int64_t step, bool final_step) const {
    return (train.eval_every > 0 && step % train.eval_every == 0) || final_step;
  }
  // The final checkpoint is written after the loop, so it is never due on the final step.
  bool checkpointDue(int64_t step, bool final_step) const {
    return train.checkpoint_every > 0 && step % train.checkpoint_every == 0 && !final_step;
  }
};

}  // namespace mixerlab
