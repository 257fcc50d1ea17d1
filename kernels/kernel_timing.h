// Timing mode of the custom kernels (issue 13), for `mixerlab bench kernels`: median wall-clock
// milliseconds of one call on random inputs, forward only (no autograd) and forward + backward of
// sum(y * w) into every input, after one warm-up call. CUDA timings synchronise the device.
#pragma once

#include <ATen/ATen.h>

namespace mixerlab::kernels {

struct KernelTimingMs {
  double forward_ms = 0, forward_backward_ms = 0;
};

// The causal token mix on x [batch, length, width] with a [length, length] weight and a bias:
// custom = true is causalTokenMix (causal_token_mix.h), false the autograd path it replaced
// (maskedTokenMixAutograd).
KernelTimingMs timeTokenMixMs(bool custom, int64_t batch, int64_t length, int64_t width, const at::Device& device,
                              int repeats);

// The CPU reference alone (no autograd) with `block_rows` rows per GEMM block (>= length: one
// dense GEMM on tril(W)), to choose the default block; forward_backward_ms is forward + backward.
KernelTimingMs timeTokenMixReferenceMs(int64_t block_rows, int64_t batch, int64_t length, int64_t width, int repeats);

// Residual add + LayerNorm over width on [batch, length, width]: fused = true is residualLayerNorm,
// false the unfused add and at::layer_norm.
KernelTimingMs timeResidualLayerNormMs(bool fused, int64_t batch, int64_t length, int64_t width,
                                       const at::Device& device, int repeats);

}  // namespace mixerlab::kernels
