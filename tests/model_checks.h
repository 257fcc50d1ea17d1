// Property checks shared by the model tests (kept in one place so every family is held to the
// same definition of causality, with fresh or random full weights), and the short training loop
// they check learning with.
#pragma once
#include <QString>

#include <string>
#include <vector>

#include <torch/torch.h>

#include "core/models/language_model.h"

namespace mixerlab::testing {

// Perturbs the tokens after t (for several t) and returns a description of the first violation:
// an output at a position <= t that changed, or no later output that changed (a model that ignores
// its input is not "causal"). Also checks that a shorter input gives the prefix of the full-length
// run. Empty when the model is causal. The model is put in eval mode.
QString causalityProblem(LanguageModel& model, int64_t length, int64_t batch = 2);

// Overwrites every parameter with torch::randn * scale. Fresh models store zeros where a mask must
// hide weights (above a token-mixing weight's diagonal), which hides a mask that leaks; random
// full weights make such a leak change the outputs.
void randomizeAllParameters(LanguageModel& model, double scale = 0.5);

// The checks of causalityProblem on a model whose parameters were all randomized first (see
// randomizeAllParameters), every forward starting from those same random weights (variants that
// rewrite their weights in place at each forward, e.g. softmax_compat, see the same weights in
// every run). "Unchanged" allows max |difference| <= relative_tolerance * max |logit| of the
// unperturbed run, since shorter inputs may round differently.
QString causalityProblemWithRandomWeights(LanguageModel& model, int64_t length, double scale = 0.5,
                                          double relative_tolerance = 1e-5, int64_t batch = 2);

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

// The families of the registry that predict the next token (the ones the decoders serve, with
// their default settings), so a test over them covers a new family without naming it.
std::vector<std::string> nextTokenFamilies();

}  // namespace mixerlab::testing
