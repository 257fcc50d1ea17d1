// Timing of the custom kernels against the paths they replace (see kernel_timing.h).
#include "kernels/kernel_timing.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <vector>

#include <ATen/core/grad_mode.h>
#include <torch/csrc/autograd/autograd.h>
#include <torch/cuda.h>

#include "kernels/causal_token_mix.h"
#include "kernels/masked_token_mix.h"
#include "kernels/residual_layer_norm.h"
#include "kernels/selective_scan.h"

namespace mixerlab::kernels {

namespace {

void syncIfCuda(const at::Device& device) {
  if (device.is_cuda()) torch::cuda::synchronize();
}

// Median milliseconds of `repeats` calls of f, each timed alone, after one warm-up call (the
// median, because this machine is often shared: a mean would carry other jobs' bursts).
double medianMs(const std::function<void()>& f, const at::Device& device, int repeats) {
  f();
  syncIfCuda(device);
  std::vector<double> times;
  for (int i = 0; i < std::max(1, repeats); ++i) {
    const auto start = std::chrono::steady_clock::now();
    f();
    syncIfCuda(device);
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  const size_t n = times.size();
  return n % 2 ? times[n / 2] : 0.5 * (times[n / 2 - 1] + times[n / 2]);
}

// Forward under no_grad, then forward + backward of sum(out * w) into `inputs`.
KernelTimingMs timeBoth(const std::function<at::Tensor()>& forward, const std::vector<at::Tensor>& inputs,
                        const at::Tensor& w, const at::Device& device, int repeats) {
  KernelTimingMs t;
  {
    at::NoGradGuard no_grad;
    t.forward_ms = medianMs([&] { forward(); }, device, repeats);
  }
  t.forward_backward_ms = medianMs(
      [&] {
        const at::Tensor loss = (forward() * w).sum();
        torch::autograd::grad({loss}, inputs);
      },
      device, repeats);
  return t;
}

}  // namespace

KernelTimingMs timeKernelEntryMs(const KernelEntry& entry, bool use_reference, const KernelShape& shape,
                                 const at::Device& device, at::ScalarType dtype, int repeats) {
  const auto opts = at::TensorOptions().dtype(dtype).device(device);
  std::vector<at::Tensor> inputs = entry.make_inputs(shape, opts);
  for (at::Tensor& t : inputs) t = t.detach().requires_grad_(true);
  const KernelFunction& op = use_reference ? entry.reference : entry.kernel;
  std::vector<at::Tensor> weights;
  {
    at::NoGradGuard no_grad;
    for (const at::Tensor& out : op(inputs)) weights.push_back(at::randn_like(out));
  }
  KernelTimingMs t;
  {
    at::NoGradGuard no_grad;
    t.forward_ms = medianMs([&] { op(inputs); }, device, repeats);
  }
  t.forward_backward_ms = medianMs(
      [&] {
        const std::vector<at::Tensor> outputs = op(inputs);
        at::Tensor loss = (outputs[0] * weights[0]).sum();
        for (size_t i = 1; i < outputs.size(); ++i) loss = loss + (outputs[i] * weights[i]).sum();
        torch::autograd::grad({loss}, inputs, {}, c10::nullopt, false, /*allow_unused=*/true);
      },
      device, repeats);
  return t;
}

KernelTimingMs timeTokenMixMs(bool custom, int64_t batch, int64_t length, int64_t width, const at::Device& device,
                              int repeats) {
  const auto opts = at::TensorOptions().dtype(at::kFloat).device(device);
  const at::Tensor x = at::randn({batch, length, width}, opts).requires_grad_(true);
  const at::Tensor weight = (at::randn({length, length}, opts) / std::sqrt(double(length))).requires_grad_(true);
  const at::Tensor bias = at::randn({length}, opts).requires_grad_(true);
  const at::Tensor w = at::randn({batch, length, width}, opts);
  auto forward = [&] {
    return custom ? causalTokenMix(x, weight, bias) : maskedTokenMixAutograd(x, weight, bias, TokenMask::kCausal);
  };
  return timeBoth(forward, {x, weight, bias}, w, device, repeats);
}

KernelTimingMs timeTokenMixReferenceMs(int64_t block_rows, int64_t batch, int64_t length, int64_t width, int repeats) {
  at::NoGradGuard no_grad;
  const at::Tensor x = at::randn({batch, length, width});
  const at::Tensor weight = at::randn({length, length}) / std::sqrt(double(length));
  const at::Tensor bias = at::randn({length});
  const at::Tensor dy = at::randn({batch, length, width});
  const at::Device cpu(at::kCPU);
  KernelTimingMs t;
  t.forward_ms = medianMs([&] { causalTokenMixForwardReference(x, weight, bias, block_rows); }, cpu, repeats);
  t.forward_backward_ms = medianMs(
      [&] {
        causalTokenMixForwardReference(x, weight, bias, block_rows);
        causalTokenMixBackwardReference(dy, x, weight, true, block_rows);
      },
      cpu, repeats);
  return t;
}

KernelTimingMs timeResidualLayerNormMs(bool fused, int64_t batch, int64_t length, int64_t width,
                                       const at::Device& device, int repeats, at::ScalarType residual_dtype) {
  const auto opts = at::TensorOptions().dtype(at::kFloat).device(device);
  const at::Tensor x = at::randn({batch, length, width}, opts).requires_grad_(true);
  const at::Tensor residual = at::randn({batch, length, width}, opts).to(residual_dtype).requires_grad_(true);
  const at::Tensor weight = (1 + 0.1 * at::randn({width}, opts)).requires_grad_(true);
  const at::Tensor bias = (0.1 * at::randn({width}, opts)).requires_grad_(true);
  const at::Tensor w = at::randn({batch, length, width}, opts);
  const at::Tensor w_sum = at::randn({batch, length, width}, opts);
  // Both outputs used, as in a pre-norm block: the normed value and the carried sum.
  auto forward = [&] {
    const auto [out, sum] = fused ? residualLayerNorm(x, residual, weight, bias, 1e-5)
                                  : residualLayerNormUnfused(x, residual, weight, bias, 1e-5);
    return out + sum * w_sum;
  };
  return timeBoth(forward, {x, residual, weight, bias}, w, device, repeats);
}

KernelTimingMs timeSelectiveScanOnDeviceMs(ScanMode mode, int64_t batch, int64_t length, int64_t channels,
                                           int64_t state, const at::Device& device, int repeats) {
  const auto opts = at::TensorOptions().dtype(at::kFloat).device(device);
  std::vector<at::Tensor> in = {at::randn({batch, length, channels}, opts),
                                at::softplus(at::randn({batch, length, channels}, opts) - 3.0),
                                -at::arange(1, state + 1, opts).repeat({channels, 1}),
                                at::randn({batch, length, state}, opts),
                                at::randn({batch, length, state}, opts),
                                at::ones({channels}, opts)};
  for (auto& t : in) t.requires_grad_(true);
  const at::Tensor w = at::randn({batch, length, channels}, opts);
  auto forward = [&] { return selectiveScan(in[0], in[1], in[2], in[3], in[4], in[5], mode); };
  return timeBoth(forward, in, w, device, repeats);
}

double selectiveScanForwardBytes(int64_t batch, int64_t length, int64_t channels, int64_t state) {
  const double rows = static_cast<double>(batch) * static_cast<double>(length);
  return 4.0 * (3.0 * rows * static_cast<double>(channels) + 2.0 * rows * static_cast<double>(state) +
                static_cast<double>(channels) * static_cast<double>(state + 1));
}

double measuredCopyBandwidthGBs(const at::Device& device, int64_t bytes, int repeats) {
  at::NoGradGuard no_grad;
  const auto opts = at::TensorOptions().dtype(at::kFloat).device(device);
  const at::Tensor source = at::rand({std::max<int64_t>(1, bytes / 4)}, opts);
  at::Tensor target = at::empty_like(source);
  const double ms = medianMs([&] { target.copy_(source); }, device, repeats);
  return 2.0 * static_cast<double>(source.numel()) * 4.0 / (ms * 1e-3) / 1e9;
}

}  // namespace mixerlab::kernels
