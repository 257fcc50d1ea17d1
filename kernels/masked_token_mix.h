// The masked mixer's core op: causal token mixing y[b] = tril(W)[L,L] x[b] + bias[:L] 1^T.
// Kept behind one function so a fused CUDA kernel can replace the reference without touching models.
#pragma once
#include <ATen/ATen.h>

namespace mixerlab::kernels {

// Which entries W[i, j] (output token i, input token j) a token-mixing weight may use.
enum class TokenMask {
  kCausal,         // j <= i (tril): the causal mixers' forward stream
  kFutureSkipOne,  // j >= i + 2 (triu, diagonal 2): the bidirectional mixer's reverse stream
  kNone,           // every entry (the caller has already masked the weight's storage in place)
};

// x: [B, L, D]; weight: [T, T] with T >= L (the leading L x L block is used, which keeps outputs at
// positions < L identical to a full-length run for the causal mask); bias: [T] or undefined.
// Returns [B, L, D]. Masked entries get zero gradient. kCausal runs the custom op causalTokenMix
// (causal_token_mix.h: hand-written backward, upper triangle skipped, CUDA kernel when built with
// it), except for half-precision products on a GPU (bf16/fp16 tensors, or CUDA autocast), where the
// GEMM path's tensor cores are faster; ComputePaths::token_mix forces one path. The other
// masks, and tensors that op does not take, run the autograd path below.
at::Tensor maskedTokenMix(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias,
                          TokenMask mask = TokenMask::kCausal);

// Whether maskedTokenMix gives a causal mix of x to the custom op (see above; the tensors must also
// pass causalTokenMixSupports).
bool customCausalOpPreferred(const at::Tensor& x);

// The autograd path for any mask: one batched GEMM on weight * mask, backward by autograd. The
// reference the custom causal op is tested and timed against.
at::Tensor maskedTokenMixAutograd(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias,
                                  TokenMask mask);

// The same product on a token-major tensor: x: [L, B, D] (contiguous), weight: [T, T], bias: [T] or
// undefined; returns [L, B, D]. With tokens outermost, the mix of the whole batch is one plain GEMM
// W[L, L] x X[L, B*D], and so are both halves of its backward (dX = W^T dY, dW = dY X^T with the
// batch folded into the reduction): no transposed copies, which the batch-major matmul needs on a GPU
// (docs/benchmarks.md, "GPU"). The bias is added in the product's dtype, as a half-precision
// convolution adds it. Every mask kind; masked entries get zero gradient.
at::Tensor tokenMajorMix(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias,
                         TokenMask mask = TokenMask::kCausal);

// Lower-triangular (j <= i) mask of shape [L, L] on the given options.
at::Tensor causalMask(int64_t length, const at::TensorOptions& options);

// 0/1 mask of shape [rows, cols] for the given kind (kNone: all ones).
at::Tensor tokenMask(TokenMask mask, int64_t rows, int64_t cols, const at::TensorOptions& options);

}  // namespace mixerlab::kernels
