// The causal token mix as one custom autograd op with a hand-written backward:
//   y[b] = tril(W[:L, :L]) x[b] + bias[:L] 1^T
//   dx[b] = tril(W)^T dy[b],   dW = tril(sum_b dy[b] x[b]^T),   dbias[i] = sum_{b, d} dy[b, i, d]
// The zero upper triangle is never multiplied (row blocks of the product stop at the diagonal) and
// the weight gradient is exactly zero above the diagonal. Dispatched by the tensors' device: CPU
// tensors take the reference below (BLAS on row blocks), CUDA tensors the kernels in
// kernels/cuda/token_mix.cu when built with MIXERLAB_WITH_CUDA, else the same reference on the GPU.
// maskedTokenMix (masked_token_mix.h) routes its kCausal mask here; the other masks stay on the
// autograd path. Not twice differentiable.
#pragma once

#include <ATen/ATen.h>

namespace mixerlab::kernels {

// True when causalTokenMix can take these tensors: x [B, L, D], weight [T, T] with L <= T, bias [T]
// or undefined, all one floating dtype on one device.
bool causalTokenMixSupports(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias);

// True while autocast is on for CUDA on this thread (maskedTokenMix then takes the GEMM path).
bool causalTokenMixUnderCudaAutocast();

// The op (see above). Under autocast for x's device, x and weight are cast to the autocast dtype
// first and the bias is added outside, the dtypes the autograd path gives.
at::Tensor causalTokenMix(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias);

// The CPU reference without autograd, for the tests and the GPU comparison. w: [L, L] (its upper
// triangle is ignored), x: [B, L, D], bias: [L] or undefined. block_rows: rows per GEMM block
// (each block stops at the diagonal); 0 picks the default, >= L is one dense GEMM on tril(W).
at::Tensor causalTokenMixForwardReference(const at::Tensor& x, const at::Tensor& w, const at::Tensor& bias,
                                          int64_t block_rows = 0);

struct TokenMixGradients {
  at::Tensor x, weight, bias;  // [B, L, D], [L, L] (zero above the diagonal), [L] (undefined without bias)
};
TokenMixGradients causalTokenMixBackwardReference(const at::Tensor& grad_y, const at::Tensor& x, const at::Tensor& w,
                                                  bool with_bias, int64_t block_rows = 0);

}  // namespace mixerlab::kernels
