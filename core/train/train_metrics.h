// What the trainer accumulates between metrics records: the pending train-loss window (kept in
// TrainerState, so a resumed run logs exactly the records an uninterrupted run would) and the
// throughput interval (training tokens over training seconds, evaluation time excluded).
#pragma once
#include <chrono>
#include <cstdint>
#include <optional>

#include "core/train/checkpoint.h"

namespace mixerlab {

class TrainMetricsAccumulator {
 public:
  // Opens the first throughput interval now; the loss window continues from `state`.
  explicit TrainMetricsAccumulator(TrainerState& state);

  void addTokens(int64_t tokens);      // training tokens consumed (counted even by a failed step)
  void addStep(double step_loss);      // one completed optimizer step's mean loss
  void addEvalSeconds(double eval_s);  // evaluation time inside the current interval

  // Closes the loss window and the throughput interval: the mean loss since the previous call
  // (nullopt when no step completed since) and updates tokensPerSecond().
  std::optional<double> takeTrainLoss();
  double tokensPerSecond() const { return tokens_per_s_; }

 private:
  using Clock = std::chrono::steady_clock;
  TrainerState& state_;
  Clock::time_point interval_start_;
  double interval_eval_s_ = 0;
  int64_t interval_tokens_ = 0;
  double tokens_per_s_ = 0;
};

}  // namespace mixerlab
