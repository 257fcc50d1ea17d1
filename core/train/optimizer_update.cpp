// Learning rate and update for every training loop (see optimizer_update.h).
#include "core/train/optimizer_update.h"

#include <torch/torch.h>

#include "core/train/multi_tensor_optimizer.h"

namespace mixerlab {

void setLearningRate(torch::optim::Optimizer& optimizer, double learning_rate) {
  for (auto& group : optimizer.param_groups()) {
    static_cast<torch::optim::AdamWOptions&>(group.options()).lr(learning_rate);
  }
}

double clipAndUpdate(torch::optim::Optimizer& optimizer, const std::vector<at::Tensor>& parameters, double clip_norm) {
  const double norm = clip_norm > 0 ? clipGradientNorm(parameters, clip_norm) : gradientNorm(parameters);
  // Multi-tensor AdamW on a GPU (one pass for every parameter), LibTorch's loop elsewhere.
  if (auto* adamw = dynamic_cast<torch::optim::AdamW*>(&optimizer)) {
    adamwStep(*adamw);
  } else {
    optimizer.step();
  }
  return norm;
}

}  // namespace mixerlab
