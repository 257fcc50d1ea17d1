// The language-model training step: grad_accum_steps micro-batches of next-token loss through the
// one optimizer step every training loop takes (optimizer_step.h). The trainer owns the cadence
// around it (train_cadence.h); the benchmarks time the same step on a fixed batch
// (app/cli/bench_step.h), so a measured speed is the trainer's speed.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <utility>

#include <c10/core/Device.h>

#include "core/config/train_config.h"
#include "core/data/batching.h"
#include "core/models/language_model.h"
#include "core/train/checkpoint.h"
#include "core/train/optimizer_step.h"

namespace mixerlab {

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
