// Multi-tensor clipping and AdamW (see multi_tensor_optimizer.h). The arithmetic follows LibTorch's
// AdamW::step() operation for operation: decoupled weight decay, the two moment updates, the
// bias-corrected denominator, the addcdiv.
#include "core/train/multi_tensor_optimizer.h"

#include <cmath>
#include <cstring>
#include <map>
#include <sstream>
#include <string>
#include <type_traits>

#include <torch/torch.h>
#include <torch/version.h>

#include "kernels/environment/compute_paths.h"

namespace mixerlab {
namespace {

#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 1)
constexpr bool kFusedAdamWBuilt = true;  // ATen's _fused_adamw_ (one kernel for the whole update)
#else
constexpr bool kFusedAdamWBuilt = false;
#endif

using kernels::OptimizerPath;

OptimizerPath optimizerPath() { return kernels::activeComputePaths().optimizer; }

std::vector<at::Tensor> definedGradients(const std::vector<at::Tensor>& parameters) {
  std::vector<at::Tensor> grads;
  for (const auto& p : parameters) {
    if (p.grad().defined()) grads.push_back(p.grad());
  }
  return grads;
}

// The norm of all gradients as a 0-dim tensor on their device (no host sync).
at::Tensor totalNormTensor(const std::vector<at::Tensor>& grads) {
  auto norms = at::_foreach_norm(grads, 2);
  return norms.size() == 1 ? norms[0] : at::stack(norms).norm(2);
}

// The library keys its per-parameter state by the parameter's TensorImpl: as the address printed
// to a string in 1.x, as the pointer itself in 2.x.
template <class StateMap>
typename StateMap::key_type stateKey(const StateMap&, const at::Tensor& p) {
  using Key = typename StateMap::key_type;
  if constexpr (std::is_same_v<Key, std::string>) {
    std::ostringstream text;
    text << p.unsafeGetTensorImpl();
    return text.str();
  } else {
    return static_cast<Key>(p.unsafeGetTensorImpl());
  }
}

// The tensors of one update: parameters with the same step count, in chunks of at most
// kChunkElements so the denominators' temporary stays small.
struct UpdateChunk {
  std::vector<at::Tensor> params, grads, exp_avgs, exp_avg_sqs;
  int64_t elements = 0;
};
constexpr int64_t kChunkElements = int64_t{1} << 26;

void updateChunk(UpdateChunk& c, const torch::optim::AdamWOptions& o, int64_t step) {
  const double beta1 = std::get<0>(o.betas()), beta2 = std::get<1>(o.betas());
  if (o.weight_decay() != 0) at::_foreach_mul_(c.params, 1 - o.lr() * o.weight_decay());
  const double bias_correction1 = 1 - std::pow(beta1, static_cast<double>(step));
  const double bias_correction2 = 1 - std::pow(beta2, static_cast<double>(step));
  at::_foreach_mul_(c.exp_avgs, beta1);
  at::_foreach_add_(c.exp_avgs, c.grads, 1 - beta1);
  at::_foreach_mul_(c.exp_avg_sqs, beta2);
  at::_foreach_addcmul_(c.exp_avg_sqs, c.grads, c.grads, 1 - beta2);
  auto denominators = at::_foreach_sqrt(c.exp_avg_sqs);
  at::_foreach_div_(denominators, std::sqrt(bias_correction2));
  at::_foreach_add_(denominators, o.eps());
  at::_foreach_addcdiv_(c.params, c.exp_avgs, denominators, -(o.lr() / bias_correction1));
}

// The same update in ATen's fused AdamW kernel (LibTorch 2.1 and later, CUDA): one pass reading
// parameter, gradient and moments once. Its step count is a device tensor, shared by the chunk.
void updateChunkFused(UpdateChunk& c, const torch::optim::AdamWOptions& o, int64_t step) {
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 1)
  const at::Tensor step_count =
      at::full({}, static_cast<double>(step), c.params.front().options().dtype(at::kFloat).requires_grad(false));
  const std::vector<at::Tensor> steps(c.params.size(), step_count);
  at::_fused_adamw_(c.params, c.grads, c.exp_avgs, c.exp_avg_sqs, /*max_exp_avg_sqs=*/{}, steps, o.lr(),
                    std::get<0>(o.betas()), std::get<1>(o.betas()), o.weight_decay(), o.eps(), /*amsgrad=*/false,
                    /*maximize=*/false);
#else
  (void)c, (void)o, (void)step;
#endif
}

bool fusedUpdateFor(const UpdateChunk& c) {
  return kFusedAdamWBuilt && optimizerPath() != OptimizerPath::kForeach && c.params.front().is_cuda();
}

}  // namespace

bool multiTensorOptimizerPreferred(const at::Tensor& example) {
  switch (optimizerPath()) {
    case OptimizerPath::kForeach:
      return true;
    case OptimizerPath::kLibrary:
      return false;
    case OptimizerPath::kAuto:
      break;
  }
  return example.defined() && example.is_cuda();
}

double clipGradientNormForeach(const std::vector<at::Tensor>& parameters, double max_norm) {
  torch::NoGradGuard no_grad;
  auto grads = definedGradients(parameters);
  if (grads.empty()) return 0.0;
  const at::Tensor total = totalNormTensor(grads);
  const at::Tensor coefficient = at::clamp(max_norm / (total + 1e-6), c10::nullopt, 1.0);
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 1)
  at::_foreach_mul_(grads, coefficient);  // the coefficient stays on the device
#else
  for (auto& g : grads) g.mul_(coefficient);
#endif
  return total.item<double>();
}

double gradientNormForeach(const std::vector<at::Tensor>& parameters) {
  torch::NoGradGuard no_grad;
  auto grads = definedGradients(parameters);
  return grads.empty() ? 0.0 : totalNormTensor(grads).item<double>();
}

double clipGradientNormLibrary(const std::vector<at::Tensor>& parameters, double max_norm) {
  return torch::nn::utils::clip_grad_norm_(parameters, max_norm);
}

double gradientNormLibrary(const std::vector<at::Tensor>& parameters) {
  std::vector<at::Tensor> norms;
  for (const auto& p : parameters) {
    if (p.grad().defined()) norms.push_back(p.grad().detach().norm(2));
  }
  return norms.empty() ? 0.0 : torch::stack(norms).norm(2).item<double>();
}

void adamwStepForeach(torch::optim::AdamW& optimizer) {
  torch::NoGradGuard no_grad;
  auto& states = optimizer.state();
  for (auto& group : optimizer.param_groups()) {
    const auto& options = static_cast<const torch::optim::AdamWOptions&>(group.options());
    TORCH_CHECK(!options.amsgrad(), "adamwStepForeach: amsgrad is not supported; use AdamW::step()");
    std::map<int64_t, std::vector<UpdateChunk>> by_step;  // normally one step count for all
    for (auto& p : group.params()) {
      if (!p.grad().defined()) continue;
      TORCH_CHECK(!p.grad().is_sparse(), "AdamW does not support sparse gradients");
      const auto key = stateKey(states, p);
      auto found = states.find(key);
      if (found == states.end()) {
        auto fresh = std::make_unique<torch::optim::AdamWParamState>();
        fresh->step(0);
        fresh->exp_avg(torch::zeros_like(p, at::MemoryFormat::Preserve));
        fresh->exp_avg_sq(torch::zeros_like(p, at::MemoryFormat::Preserve));
        states[key] = std::move(fresh);
        found = states.find(key);
      }
      auto& state = static_cast<torch::optim::AdamWParamState&>(*found->second);
      state.step(state.step() + 1);
      auto& chunks = by_step[state.step()];
      if (chunks.empty() || chunks.back().elements + p.numel() > kChunkElements) chunks.emplace_back();
      UpdateChunk& chunk = chunks.back();
      chunk.params.push_back(p);
      chunk.grads.push_back(p.grad());
      chunk.exp_avgs.push_back(state.exp_avg());
      chunk.exp_avg_sqs.push_back(state.exp_avg_sq());
      chunk.elements += p.numel();
    }
    for (auto& [step, chunks] : by_step) {
      for (auto& chunk : chunks) {
        if (fusedUpdateFor(chunk)) {
          updateChunkFused(chunk, options, step);
        } else {
          updateChunk(chunk, options, step);
        }
      }
    }
  }
}

const torch::optim::AdamWParamState* adamwStateOf(torch::optim::AdamW& optimizer, const at::Tensor& parameter) {
  auto& states = optimizer.state();
  const auto found = states.find(stateKey(states, parameter));
  return found == states.end() ? nullptr : static_cast<const torch::optim::AdamWParamState*>(found->second.get());
}

double clipGradientNorm(const std::vector<at::Tensor>& parameters, double max_norm) {
  return !parameters.empty() && multiTensorOptimizerPreferred(parameters.front())
             ? clipGradientNormForeach(parameters, max_norm)
             : clipGradientNormLibrary(parameters, max_norm);
}

double gradientNorm(const std::vector<at::Tensor>& parameters) {
  return !parameters.empty() && multiTensorOptimizerPreferred(parameters.front()) ? gradientNormForeach(parameters)
                                                                                  : gradientNormLibrary(parameters);
}

void adamwStep(torch::optim::AdamW& optimizer) {
  bool foreach_path = false;
  for (const auto& group : optimizer.param_groups()) {
    if (static_cast<const torch::optim::AdamWOptions&>(group.options()).amsgrad()) {
      optimizer.step();
      return;
    }
    if (!group.params().empty()) foreach_path = foreach_path || multiTensorOptimizerPreferred(group.params().front());
  }
  if (foreach_path) {
    adamwStepForeach(optimizer);
  } else {
    optimizer.step();
  }
}

}  // namespace mixerlab
