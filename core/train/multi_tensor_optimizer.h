// Gradient clipping and the AdamW update over all parameters at once. LibTorch's C++ AdamW and
// clip_grad_norm_ loop over the parameters, about ten kernels each: on a GPU the D=1024 N=8 mixer's
// 82 tensors cost some 900 launches and ten passes over the weights per step, where PyTorch's fused
// optimizer makes one. The multi-tensor versions here do the same arithmetic with ATen's
// `_foreach_*` ops (a handful of launches for every tensor together) and keep their state in the
// library AdamW's own state map, so checkpoints and resume are unchanged.
//
// On CUDA with LibTorch 2.1 or later the AdamW update is ATen's fused kernel (_fused_adamw_, what
// PyTorch's AdamW(fused=True) runs): one pass over parameters, gradients and moments.
//
// The trainer and the benchmarks call clipGradientNorm / gradientNorm / adamwStep. They take the
// multi-tensor path for CUDA parameters and LibTorch's loops on the CPU (whose numbers they keep
// bit for bit). ComputePaths::optimizer (MIXERLAB_OPTIMIZER) = foreach (foreach ops, never the fused kernel) or
// =library forces one path for A/B timings (docs/benchmarks.md).
#pragma once
#include <vector>

#include <ATen/ATen.h>

namespace torch::optim {
class AdamW;
struct AdamWParamState;
}  // namespace torch::optim

namespace mixerlab {

// The L2 norm of all gradients together before clipping; scales them by max_norm / (norm + 1e-6)
// when that is below 1, as torch::nn::utils::clip_grad_norm_.
double clipGradientNorm(const std::vector<at::Tensor>& parameters, double max_norm);

// The same norm without touching the gradients (clipping off).
double gradientNorm(const std::vector<at::Tensor>& parameters);

// One AdamW update of every parameter with a gradient, as torch::optim::AdamW::step().
void adamwStep(torch::optim::AdamW& optimizer);

// The two paths, whatever the device (the tests compare them on the CPU).
double clipGradientNormForeach(const std::vector<at::Tensor>& parameters, double max_norm);
double gradientNormForeach(const std::vector<at::Tensor>& parameters);
void adamwStepForeach(torch::optim::AdamW& optimizer);
double clipGradientNormLibrary(const std::vector<at::Tensor>& parameters, double max_norm);
double gradientNormLibrary(const std::vector<at::Tensor>& parameters);

// The optimizer's state for `parameter` (moments and step count), or null before its first step.
const torch::optim::AdamWParamState* adamwStateOf(torch::optim::AdamW& optimizer, const at::Tensor& parameter);

// True when the calls above take the multi-tensor path for parameters like `example`.
bool multiTensorOptimizerPreferred(const at::Tensor& example);

}  // namespace mixerlab
