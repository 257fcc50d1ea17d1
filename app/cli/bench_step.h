// The training step the benchmarks time, on one fixed batch of random tokens: the trainer's own
// step (runTrainStep in core/train/train_step.h) fed that batch instead of the data loader, so the
// arithmetic is the trainer's: forward under AutocastScope, the loss in fp32, fp16 loss scaling
// (overflowing steps skipped), data-parallel gradient averaging during backward, clipping at 1.0,
// AdamW at a constant 5e-4. Torch types stay in the .cpp.
#pragma once
#include <cstdint>
#include <memory>

#include <c10/core/Device.h>

#include "core/models/model_config.h"
#include "core/train/mixed_precision.h"
#include "core/train/train_step.h"

namespace mixerlab {
class ProcessGroup;
}

namespace mixerlab::cli {

class RandomTokenTrainer {
 public:
  // Builds the model (seed 0) on `device` and a [local_batch, context] batch of random token ids.
  // With `group`, gradients are averaged over its ranks (GradientSync).
  RandomTokenTrainer(const ModelConfig& model, int64_t local_batch, const c10::Device& device, Precision precision,
                     ProcessGroup* group = nullptr);
  ~RandomTokenTrainer();
  RandomTokenTrainer(const RandomTokenTrainer&) = delete;
  RandomTokenTrainer& operator=(const RandomTokenTrainer&) = delete;

  // One optimizer step; returns the loss (reading it waits for the device). With `phases`, the
  // device is synchronised between the phases and their times written there.
  double step(StepPhaseTimes* phases = nullptr);
  int64_t parameterCount() const;
  int64_t skippedSteps() const;  // fp16 steps skipped for inf/NaN gradients

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace mixerlab::cli
