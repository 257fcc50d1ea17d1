// Evaluation loss (see evaluator.h).
#include "core/train/evaluator.h"

#include <torch/torch.h>

namespace mixerlab {

double evaluateLoss(LanguageModel& model, const std::vector<Batch>& batches, const c10::Device& device) {
  torch::NoGradGuard no_grad;
  const bool was_training = model.is_training();
  model.eval();
  double loss_sum = 0;
  double target_count = 0;
  for (const auto& batch : batches) {
    auto ids = batch.input_ids.to(device);
    auto labels = batch.labels.to(device);
    auto logits = model.forward(ids);
    const double targets = static_cast<double>(model.targetCount(labels));
    if (targets == 0) continue;
    loss_sum += model.loss(logits, labels).item<double>() * targets;
    target_count += targets;
  }
  model.train(was_training);
  return target_count > 0 ? loss_sum / target_count : 0.0;
}

}  // namespace mixerlab
