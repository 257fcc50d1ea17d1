// Shared model property checks (see model_checks.h).
#include "tests/model_checks.h"

#include "core/analysis/decoders/token_decoder.h"
#include "core/models/model_registry.h"
#include "core/util/error.h"
#include "tests/tiny_model_config.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

namespace mixerlab::testing {

namespace {

using Forward = std::function<at::Tensor(const at::Tensor&)>;

double maxDifference(const at::Tensor& a, const at::Tensor& b) { return (a - b).abs().max().item<double>(); }

// The causality checks of causalityProblem on `forward`. relative_tolerance 0: earlier outputs must
// be bit-identical, later ones differ beyond allclose's defaults, a prefix run match within 1e-5.
// Otherwise all three compare max |difference| with relative_tolerance * max |logit| of the base run.
QString causalityProblemOf(const Forward& forward, int64_t vocab, int64_t length, int64_t batch,
                           double relative_tolerance) {
  auto ids = torch::randint(0, vocab, {batch, length}, torch::kLong);
  auto base = forward(ids);
  if (!torch::isfinite(base).all().item<bool>()) return QString("the outputs are not finite");
  const double scale = base.abs().max().item<double>();
  const double allowed = relative_tolerance * scale;
  const bool exact = relative_tolerance == 0;
  auto difference = [&](const at::Tensor& a, const at::Tensor& b) {
    return exact ? QString() : QString(" (max difference %1, max |logit| %2)").arg(maxDifference(a, b)).arg(scale);
  };
  for (int64_t t : {int64_t{0}, length / 4, length / 2, length - 2}) {
    auto changed = ids.clone();
    const int64_t after = length - t - 1;
    changed.narrow(1, t + 1, after).copy_(torch::randint(0, vocab, {batch, after}, torch::kLong));
    auto out = forward(changed);
    auto early = out.narrow(1, 0, t + 1), base_early = base.narrow(1, 0, t + 1);
    if (exact ? !torch::equal(early, base_early) : maxDifference(early, base_early) > allowed) {
      return QString("outputs at positions <= %1 changed when later tokens changed").arg(t) +
             difference(early, base_early);
    }
    auto late = out.narrow(1, t + 1, after), base_late = base.narrow(1, t + 1, after);
    if (exact ? torch::allclose(late, base_late) : maxDifference(late, base_late) <= allowed) {
      return QString("outputs after position %1 ignore the tokens there").arg(t) + difference(late, base_late);
    }
  }
  const int64_t prefix = std::max<int64_t>(1, length / 2);
  auto short_run = forward(ids.narrow(1, 0, prefix)), base_prefix = base.narrow(1, 0, prefix);
  if (exact ? !torch::allclose(short_run, base_prefix, 1e-5, 1e-5) : maxDifference(short_run, base_prefix) > allowed) {
    return QString("a %1-token input does not give the prefix of the full-length outputs").arg(prefix) +
           difference(short_run, base_prefix);
  }
  return {};
}

}  // namespace

QString causalityProblem(LanguageModel& model, int64_t length, int64_t batch) {
  model.eval();
  torch::NoGradGuard no_grad;
  const Forward forward = [&model](const at::Tensor& ids) { return model.forward(ids); };
  return causalityProblemOf(forward, model.config().vocab_size, length, batch, 0);
}

void randomizeAllParameters(LanguageModel& model, double scale) {
  torch::NoGradGuard no_grad;
  for (auto& parameter : model.parameters())
    parameter.copy_(torch::randn(parameter.sizes(), parameter.options()) * scale);
}

QString causalityProblemWithRandomWeights(LanguageModel& model, int64_t length, double scale, double relative_tolerance,
                                          int64_t batch) {
  model.eval();
  torch::NoGradGuard no_grad;
  randomizeAllParameters(model, scale);
  std::vector<at::Tensor> parameters = model.parameters(), random_values;
  for (const auto& parameter : parameters) random_values.push_back(parameter.clone());
  // Restored before every run: a variant that rewrites its weights at each forward (softmax_compat,
  // inplace_compat) then sees the full random weights every time, masked entries included.
  const Forward forward = [&](const at::Tensor& ids) {
    for (size_t i = 0; i < parameters.size(); ++i) parameters[i].copy_(random_values[i]);
    return model.forward(ids);
  };
  return causalityProblemOf(forward, model.config().vocab_size, length, batch, relative_tolerance);
}

LossTrend trainOnOneBatch(LanguageModel& model, torch::optim::Optimizer& optimizer, const at::Tensor& ids, int steps,
                          double clip_norm) {
  LossTrend trend;
  for (int step = 0; step < steps; ++step) {
    optimizer.zero_grad();
    auto loss = model.loss(model.forward(ids), ids);
    loss.backward();
    if (clip_norm > 0) {
      const double norm = torch::nn::utils::clip_grad_norm_(model.parameters(), clip_norm);
      if (!std::isfinite(norm)) {
        trend.bad_gradient_norm = norm;
        return trend;
      }
    }
    optimizer.step();
    (step == 0 ? trend.first : trend.last) = loss.item<double>();
  }
  return trend;
}

std::vector<std::string> nextTokenFamilies() {
  std::vector<std::string> names;
  for (const auto& info : architectures()) {
    auto model = buildModel(tinyModelConfig(info.name, 32, 16, 2, 8));
    try {
      nextTokenModel(*model);
      names.push_back(info.name);
    } catch (const MixerLabError&) {
    }
  }
  return names;
}

}  // namespace mixerlab::testing
