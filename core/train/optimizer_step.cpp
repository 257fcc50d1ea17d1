// The one optimizer step (see optimizer_step.h).
#include "core/train/optimizer_step.h"

#include <chrono>
#include <cmath>
#include <limits>

#include <torch/cuda.h>
#include <torch/torch.h>

#include "core/train/data_parallel_start.h"
#include "core/train/gradients.h"
#include "core/train/optimizer_update.h"

namespace mixerlab {
namespace {

bool anyRankNonFinite(ProcessGroup& group, bool non_finite) { return anyRank(group, non_finite); }

// Adds the time since the last mark to `phase_ms` once the device has finished its queued work;
// does nothing when the phases are not asked for.
class PhaseClock {
 public:
  PhaseClock(const c10::Device& device, bool on) : device_(device), on_(on) { mark(nullptr); }
  void mark(double* phase_ms) {
    if (!on_) return;
    if (device_.is_cuda()) torch::cuda::synchronize(device_.index());
    const auto now = std::chrono::steady_clock::now();
    if (phase_ms) *phase_ms += std::chrono::duration<double, std::milli>(now - since_).count();
    since_ = now;
  }

 private:
  c10::Device device_;
  bool on_;
  std::chrono::steady_clock::time_point since_;
};

}  // namespace

StepOutcome runOptimizerStep(const std::vector<at::Tensor>& parameters, torch::optim::Optimizer& optimizer,
                             const MicroBatchLossSource& next_loss, const OptimizerStepSettings& settings,
                             const c10::Device& device, const DataParallelStep* data_parallel,
                             const StepPrecision& precision, StepPhaseTimes* phases) {
  StepOutcome outcome;
  PhaseClock clock(device, phases != nullptr);
  setLearningRate(optimizer, settings.learning_rate);
  clearGradients(parameters);
  const double micro_batches = static_cast<double>(settings.micro_batches);
  ProcessGroup* group = data_parallel ? data_parallel->group : nullptr;
  const int64_t world = group ? group->worldSize() : 1;
  for (int64_t micro = 0; micro < settings.micro_batches; ++micro) {
    MicroBatchLoss part = next_loss();
    const double value = part.loss.item<double>();
    // Every rank stops before its backward when any rank's loss is not finite (a rank that went
    // on alone would wait forever in the all-reduce).
    const bool finite = std::isfinite(value);
    if (group ? anyRankNonFinite(*group, !finite) : !finite) {
      outcome.non_finite_loss = finite ? std::numeric_limits<double>::quiet_NaN() : value;
      return outcome;
    }
    clock.mark(phases ? &phases->forward_ms : nullptr);
    const bool last = micro + 1 == settings.micro_batches;
    if (group && last) data_parallel->sync->armForNextBackward();
    // Dynamic loss scaling (fp16): the scaled loss keeps small gradients above fp16's underflow.
    (precision.scaler ? precision.scaler->scaled(part.loss) / micro_batches : part.loss / micro_batches).backward();
    if (group && last) data_parallel->sync->finish();
    clock.mark(phases ? &phases->backward_ms : nullptr);
    outcome.loss += value / micro_batches;
    outcome.tokens += part.tokens * world;
    if (part.consumed) part.consumed();
  }
  // Data parallel: the gradients were averaged over the ranks bucket by bucket during the last
  // backward (finished above), before clipping, so every rank clips and steps on the same gradients.
  if (group) outcome.loss = meanOverRanks(*group, outcome.loss);

  // Loss scaling: the gradients are unscaled before clipping, so the clip norm applies to the true
  // gradients; a step with inf/NaN gradients is skipped (every rank holds the same averaged
  // gradients, so every rank skips it).
  if (precision.scaler) {
    const bool finite = precision.scaler->unscaleAndCheck(parameters);
    precision.scaler->update(finite);
    if (!finite) {
      outcome.skipped_for_overflow = true;
      clock.mark(phases ? &phases->optimizer_ms : nullptr);
      return outcome;
    }
  }
  // The norm is logged either way.
  outcome.grad_norm = clipAndUpdate(optimizer, parameters, settings.grad_clip_norm);
  clock.mark(phases ? &phases->optimizer_ms : nullptr);
  return outcome;
}

}  // namespace mixerlab
