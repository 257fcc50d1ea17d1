// Property checks shared by the model tests (kept in one place so every family is held to the
// same definition of causality), and the short training loop they check learning with.
#pragma once
#include <QString>

#include <torch/torch.h>

#include "core/models/language_model.h"

namespace mixerlab::testing {

// Perturbs the tokens after t (for several t) and returns a description of the first violation:
// an output at a position <= t that changed, or no later output that changed (a model that ignores
// its input is not "causal"). Also checks that a shorter input gives the prefix of the full-length
// run. Empty when the model is causal. The model is put in eval mode.
QString causalityProblem(LanguageModel& model, int64_t length, int64_t batch = 2);

// The losses of the first and the last of a few optimizer steps on one batch.
struct LossTrend {
  double first = 0, last = 0;
  double bad_gradient_norm = 0;  // with clipping: the first non-finite gradient norm (training stopped there)
  bool finiteGradients() const { return bad_gradient_norm == 0; }
};

// Runs `steps` steps of `optimizer` on the model's own loss for `ids` (inputs and labels). With
// clip_norm > 0 each step first clips the gradient norm to it, and a non-finite norm stops the run.
LossTrend trainOnOneBatch(LanguageModel& model, torch::optim::Optimizer& optimizer, const at::Tensor& ids, int steps,
                          double clip_norm = 0);

}  // namespace mixerlab::testing
