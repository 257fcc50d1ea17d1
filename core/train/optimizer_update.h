// The optimizer's side of every training loop (the trainer and, through its step, the benchmarks;
// retrieval-model training; InfoNCE fine-tuning): the scheduled learning rate set on every
// parameter group before the step, and after backward the gradients clipped and the update taken
// (multi-tensor AdamW on a GPU, multi_tensor_optimizer.h). One owner, so the loops cannot drift.
#pragma once
#include <vector>

#include <ATen/core/Tensor.h>

namespace torch::optim {
class Optimizer;
}

namespace mixerlab {

void setLearningRate(torch::optim::Optimizer& optimizer, double learning_rate);

// Clips the gradients' global L2 norm to `clip_norm` (not at all when clip_norm <= 0) and applies
// the update: adamwStep for AdamW, the optimizer's own step otherwise. Returns the norm before
// clipping (measured without touching the gradients when clipping is off).
double clipAndUpdate(torch::optim::Optimizer& optimizer, const std::vector<at::Tensor>& parameters, double clip_norm);

}  // namespace mixerlab
