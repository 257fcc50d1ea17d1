// One optimizer step: learning rate, forward and backward over grad_accum_steps micro-batches,
// gradient clipping and the AdamW update. The trainer owns the cadence around it (train_cadence.h);
// the benchmarks time the same step on a fixed batch (app/cli/bench_step.h), so a measured speed is
// the trainer's speed.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <utility>

#include <c10/core/Device.h>

#include "core/config/train_config.h"
#include "core/data/batching.h"
#include "core/distributed/gradient_sync.h"
#include "core/distributed/process_group.h"
#include "core/models/language_model.h"
#include "core/train/checkpoint.h"
#include "core/train/loss_scaler.h"
#include "core/train/mixed_precision.h"

namespace torch::optim {
class Optimizer;
}

namespace mixerlab {

struct StepOutcome {
  double loss = 0;     // mean training loss over the step's micro-batches
  int64_t tokens = 0;  // training tokens the step consumed
  // L2 norm of the averaged (and unscaled) gradients before clipping; absent for a skipped step.
  std::optional<double> grad_norm;
  // Dynamic loss scaling found inf/NaN gradients: the update was skipped (the weights and the
  // optimizer state are unchanged; the data was consumed) and the scale backed off.
  bool skipped_for_overflow = false;
  // A micro-batch's loss was NaN or infinite: the step stopped there, before its backward and
  // before the update (the model is unchanged; earlier micro-batches were consumed).
  std::optional<double> non_finite_loss;
};

// A data-parallel step: this rank's share of each batch comes from the loader (BatchShard), the
// ranks agree on a non-finite loss before any backward, gradients are averaged by `sync` during
// the last backward, and the step's loss is the mean over the ranks. Tokens count the global batch.
struct DataParallelStep {
  ProcessGroup* group = nullptr;
  GradientSync* sync = nullptr;
};

// The arithmetic of a step: the forward's autocast precision and, for fp16, the loss scaler (owned
// by the trainer; its state goes into TrainerState).
struct StepPrecision {
  Precision precision = Precision::Fp32;
  DynamicLossScaler* scaler = nullptr;
};

// Where one step's time goes, when asked for: each phase ends with a device synchronisation, so the
// three add up to the step (plus the syncs) and a phase's figure holds its GPU work, not just its
// launches. Summed over the micro-batches.
struct StepPhaseTimes {
  double forward_ms = 0;    // forward under autocast and the fp32 loss
  double backward_ms = 0;   // backward (and the data-parallel gradient averaging)
  double optimizer_ms = 0;  // unscaling, clipping and the AdamW update
};

// The next micro-batch and the data position after it.
using MicroBatchSource = std::function<std::pair<Batch, DataPosition>()>;

// Runs one step at `learning_rate` on micro-batches from `next_batch`. Advances state.data_position
// and state.tokens per micro-batch; the caller counts the step itself (state.step) once the outcome
// is finite. With `phases`, the device is synchronised between the phases and their times added.
StepOutcome runTrainStep(LanguageModel& model, torch::optim::Optimizer& optimizer, const MicroBatchSource& next_batch,
                         const TrainConfig& train, const c10::Device& device, double learning_rate, TrainerState& state,
                         const DataParallelStep* data_parallel = nullptr, const StepPrecision& precision = {},
                         StepPhaseTimes* phases = nullptr);
// The trainer's form: micro-batches from its loader.
StepOutcome runTrainStep(LanguageModel& model, torch::optim::Optimizer& optimizer, PrefetchingLoader& loader,
                         const TrainConfig& train, const c10::Device& device, double learning_rate, TrainerState& state,
                         const DataParallelStep* data_parallel = nullptr, const StepPrecision& precision = {});

}  // namespace mixerlab
