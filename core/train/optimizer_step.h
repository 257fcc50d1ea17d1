// The one optimizer step every training loop takes: the scheduled learning rate set, the gradients
// cleared, forward and backward over the step's micro-batches (the caller gives each micro-batch's
// loss), a non-finite loss stopping the step before its backward (on every rank at once), the
// gradients averaged over the ranks during the last backward, fp16 loss scaling, clipping and the
// update (optimizer_update.h). The language-model trainer (train_step.h), the benchmarks (through
// the trainer's step), retrieval-model training and InfoNCE fine-tuning all call it; only their
// losses differ. The order of operations is part of exact resume: keep it.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include "core/distributed/gradient_sync.h"
#include "core/distributed/process_group.h"
#include "core/train/loss_scaler.h"
#include "core/train/mixed_precision.h"

namespace torch::optim {
class Optimizer;
}

namespace mixerlab {

struct StepOutcome {
  double loss = 0;     // mean training loss over the step's micro-batches
  int64_t tokens = 0;  // what the step consumed over every rank (tokens; pairs or summaries elsewhere)
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

// One micro-batch's part of a step.
struct MicroBatchLoss {
  at::Tensor loss;                 // its mean loss: a scalar in fp32 (at least), with its graph
  int64_t tokens = 0;              // what it consumed on this rank (counted x the ranks)
  std::function<void()> consumed;  // called after its backward (the trainer moves its data position); may be empty
};
// Computes the next micro-batch's loss (its forward); called once per micro-batch, in order.
using MicroBatchLossSource = std::function<MicroBatchLoss()>;

struct OptimizerStepSettings {
  double learning_rate = 0;
  int64_t micro_batches = 1;    // losses averaged into one update (gradient accumulation)
  double grad_clip_norm = 1.0;  // <= 0: no clipping
};

// Runs one step over `parameters` (every parameter `optimizer` updates). The forward phase is the
// source's call and the loss's read-back; with `phases`, the device is synchronised between the
// phases and their times added.
StepOutcome runOptimizerStep(const std::vector<at::Tensor>& parameters, torch::optim::Optimizer& optimizer,
                             const MicroBatchLossSource& next_loss, const OptimizerStepSettings& settings,
                             const c10::Device& device, const DataParallelStep* data_parallel = nullptr,
                             const StepPrecision& precision = {}, StepPhaseTimes* phases = nullptr);

}  // namespace mixerlab
