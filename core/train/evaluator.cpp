// Evaluation loss (see evaluator.h).
#include "core/train/evaluator.h"

#include <torch/torch.h>

#include "core/util/error.h"

namespace mixerlab {

EvalWeighting parseEvalWeighting(const std::string& name) {
  if (name == "samples") return EvalWeighting::Samples;
  if (name == "tokens") return EvalWeighting::Tokens;
  throw MixerLabError("unknown eval weighting \"" + name + "\"", "use \"samples\" or \"tokens\"");
}

std::string evalWeightingName(EvalWeighting weighting) {
  return weighting == EvalWeighting::Tokens ? "tokens" : "samples";
}

double evaluateLoss(LanguageModel& model, const std::vector<Batch>& batches, const c10::Device& device,
                    EvalWeighting weighting, Precision precision) {
  torch::NoGradGuard no_grad;
  const bool was_training = model.is_training();
  model.eval();
  double loss_sum = 0;
  double weight_sum = 0;
  for (const auto& batch : batches) {
    auto ids = batch.input_ids.to(device);
    auto labels = batch.labels.to(device);
    at::Tensor logits;
    {
      AutocastScope autocast(device, precision);
      logits = atLeastFp32(model.forward(ids));
    }
    const double targets = static_cast<double>(model.targetCount(labels));
    if (targets == 0) continue;
    const double weight = weighting == EvalWeighting::Tokens ? targets : static_cast<double>(ids.size(0));
    loss_sum += model.loss(logits, labels).item<double>() * weight;
    weight_sum += weight;
  }
  model.train(was_training);
  if (weight_sum == 0) {
    throw MixerLabError("the eval split has no target token to score (" + std::to_string(batches.size()) +
                            " batches), so there is no eval loss",
                        "use a longer eval text, a shorter model.context_length, or train.batch_mode \"padded\"");
  }
  return loss_sum / weight_sum;
}

}  // namespace mixerlab
