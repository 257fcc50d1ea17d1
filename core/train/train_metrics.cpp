// Train-loss window and throughput interval (see train_metrics.h).
#include "core/train/train_metrics.h"

namespace mixerlab {

TrainMetricsAccumulator::TrainMetricsAccumulator(TrainerState& state) : state_(state), interval_start_(Clock::now()) {}

void TrainMetricsAccumulator::addTokens(int64_t tokens) { interval_tokens_ += tokens; }

void TrainMetricsAccumulator::addStep(double step_loss) {
  state_.pending_loss_sum += step_loss;
  state_.pending_loss_steps += 1;
}

void TrainMetricsAccumulator::addEvalSeconds(double eval_s) { interval_eval_s_ += eval_s; }

std::optional<double> TrainMetricsAccumulator::takeTrainLoss() {
  if (state_.pending_loss_steps == 0) return std::nullopt;
  const double mean = state_.pending_loss_sum / static_cast<double>(state_.pending_loss_steps);
  state_.pending_loss_sum = 0;
  state_.pending_loss_steps = 0;
  const double train_s = std::chrono::duration<double>(Clock::now() - interval_start_).count() - interval_eval_s_;
  tokens_per_s_ = train_s > 0 ? static_cast<double>(interval_tokens_) / train_s : 0;
  interval_start_ = Clock::now();
  interval_eval_s_ = 0;
  interval_tokens_ = 0;
  return mean;
}

}  // namespace mixerlab
