// The training step the benchmarks time, on one fixed batch of random tokens: the trainer's step
// (train_step.cpp) without its data loader. Same arithmetic: forward under AutocastScope, the loss
// in fp32, fp16 loss scaling with DynamicLossScaler (overflowing steps skipped), data-parallel
// gradient averaging during backward, clipping at 1.0, AdamW. Torch types stay in the .cpp.
#pragma once
#include <cstdint>
#include <memory>

#include <c10/core/Device.h>

#include "core/models/model_config.h"
#include "core/train/mixed_precision.h"

namespace mixerlab {
class ProcessGroup;
}

namespace mixerlab::cli {

// Where one step's time goes: each phase ends with a device synchronisation, so the three add up
// to the step (plus the syncs) and a phase's figure holds its GPU work, not just its launches.
struct StepPhaseTimes {
  double forward_ms = 0;    // forward under autocast and the fp32 loss
  double backward_ms = 0;   // backward (and the data-parallel gradient averaging)
  double optimizer_ms = 0;  // unscaling, clipping and the AdamW update
};

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
