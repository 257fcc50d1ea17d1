// Shared model property checks (see model_checks.h).
#include "tests/model_checks.h"

#include <torch/torch.h>

#include <cmath>

namespace mixerlab::testing {

QString causalityProblem(LanguageModel& model, int64_t length, int64_t batch) {
  model.eval();
  torch::NoGradGuard no_grad;
  const int64_t vocab = model.config().vocab_size;
  auto ids = torch::randint(0, vocab, {batch, length}, torch::kLong);
  auto base = model.forward(ids);
  for (int64_t t : {int64_t{0}, length / 4, length / 2, length - 2}) {
    auto changed = ids.clone();
    const int64_t after = length - t - 1;
    changed.narrow(1, t + 1, after).copy_(torch::randint(0, vocab, {batch, after}, torch::kLong));
    auto out = model.forward(changed);
    if (!torch::equal(out.narrow(1, 0, t + 1), base.narrow(1, 0, t + 1))) {
      return QString("outputs at positions <= %1 changed when later tokens changed").arg(t);
    }
    if (torch::allclose(out.narrow(1, t + 1, after), base.narrow(1, t + 1, after))) {
      return QString("outputs after position %1 ignore the tokens there").arg(t);
    }
  }
  const int64_t prefix = std::max<int64_t>(1, length / 2);
  if (!torch::allclose(model.forward(ids.narrow(1, 0, prefix)), base.narrow(1, 0, prefix), 1e-5, 1e-5)) {
    return QString("a %1-token input does not give the prefix of the full-length outputs").arg(prefix);
  }
  return {};
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

}  // namespace mixerlab::testing
