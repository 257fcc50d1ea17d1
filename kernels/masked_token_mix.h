// The masked mixer's core op: causal token mixing y[b] = tril(W)[L,L] x[b] + bias[:L] 1^T.
// Kept behind one function so a fused CUDA kernel can replace the reference without touching models.
#pragma once
#include <ATen/ATen.h>

namespace mixerlab::kernels {

// x: [B, L, D]; weight: [T, T] with T >= L (the leading L x L block is used, which keeps outputs at
// positions < L identical to a full-length run); bias: [T] or undefined. Returns [B, L, D].
// The upper triangle of `weight` is masked inside the autograd graph, so its gradient is zero.
at::Tensor maskedTokenMix(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias);

// Lower-triangular (j <= i) mask of shape [L, L] on the given options.
at::Tensor causalMask(int64_t length, const at::TensorOptions& options);

}  // namespace mixerlab::kernels
