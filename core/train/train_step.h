// One optimizer step: learning rate, forward and backward over grad_accum_steps micro-batches,
// gradient clipping and the AdamW update. The trainer owns the cadence around it (train_cadence.h).
#pragma once
#include <cstdint>
#include <optional>

#include <c10/core/Device.h>

#include "core/config/train_config.h"
#include "core/data/batching.h"
#include "core/distributed/gradient_sync.h"
#include "core/distributed/process_group.h"
#include "core/models/language_model.h"
#include "core/train/checkpoint.h"

namespace torch::optim {
class Optimizer;
}

namespace mixerlab {

struct StepOutcome {
  double loss = 0;     // mean training loss over the step's micro-batches
  int64_t tokens = 0;  // training tokens the step consumed
  double grad_norm = 0;  // L2 norm of the averaged gradients before clipping
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

// Runs one step at `learning_rate`. Advances state.data_position and state.tokens per micro-batch;
// the caller counts the step itself (state.step) once the outcome is finite.
StepOutcome runTrainStep(LanguageModel& model, torch::optim::Optimizer& optimizer, PrefetchingLoader& loader,
                         const TrainConfig& train, const c10::Device& device, double learning_rate,
                         TrainerState& state, const DataParallelStep* data_parallel = nullptr);

}  // namespace mixerlab
