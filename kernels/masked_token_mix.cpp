// The masked token mix (see masked_token_mix.h): the causal mask takes the custom op of
// causal_token_mix.h, the other masks one batched GEMM on the masked weight under autograd.
#include "kernels/masked_token_mix.h"

#include "kernels/causal_token_mix.h"
#include "kernels/environment/compute_paths.h"

#include <c10/util/Exception.h>

namespace mixerlab::kernels {

// The custom op, unless the product runs in half precision on a GPU: there the one-GEMM path uses
// the tensor cores (cuBLAS) and the custom kernel does not. Measured on an H200, bf16, the D=1024
// N=8 T=512 mixer: 32.9 ms per training step through the GEMM against 49.8 ms through the custom
// kernel (docs/benchmarks.md, "GPU").
bool customCausalOpPreferred(const at::Tensor& x) {
  switch (activeComputePaths().token_mix) {
    case TokenMixPath::kGemm:
      return false;
    case TokenMixPath::kCustom:
      return true;
    case TokenMixPath::kAuto:
      break;
  }
  if (!x.is_cuda()) return true;
  const bool half = x.scalar_type() == at::kHalf || x.scalar_type() == at::kBFloat16;
  return !half && !causalTokenMixUnderCudaAutocast();
}

at::Tensor causalMask(int64_t length, const at::TensorOptions& options) {
  return at::ones({length, length}, options).tril();
}

at::Tensor tokenMask(TokenMask mask, int64_t rows, int64_t cols, const at::TensorOptions& options) {
  auto ones = at::ones({rows, cols}, options);
  switch (mask) {
    case TokenMask::kCausal:
      return ones.tril();
    case TokenMask::kFutureSkipOne:
      return ones.triu(2);
    case TokenMask::kNone:
      break;
  }
  return ones;
}

at::Tensor maskedTokenMix(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias, TokenMask mask) {
  TORCH_CHECK(x.dim() == 3, "maskedTokenMix: x must be [B, L, D], got ", x.sizes());
  TORCH_CHECK(weight.dim() == 2 && weight.size(0) == weight.size(1), "maskedTokenMix: weight must be [T, T], got ",
              weight.sizes());
  const int64_t length = x.size(1);
  TORCH_CHECK(length <= weight.size(0), "maskedTokenMix: sequence length ", length, " exceeds the model's context ",
              weight.size(0));
  if (mask == TokenMask::kCausal && customCausalOpPreferred(x) && causalTokenMixSupports(x, weight, bias)) {
    return causalTokenMix(x, weight, bias);
  }
  return maskedTokenMixAutograd(x, weight, bias, mask);
}

at::Tensor maskedTokenMixAutograd(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias,
                                  TokenMask mask) {
  const int64_t length = x.size(1);
  const bool full = length == weight.size(0);  // skip no-op slices: their backward allocates and copies
  at::Tensor w = full ? weight : weight.narrow(0, 0, length).narrow(1, 0, length);
  if (mask == TokenMask::kCausal) {
    w = w * causalMask(length, w.options());
  } else if (mask != TokenMask::kNone) {
    w = w * tokenMask(mask, length, length, w.options());
  }
  at::Tensor y = at::matmul(w, x);  // [L,L] x [B,L,D] -> [B,L,D]
  if (bias.defined()) y = y + (full ? bias : bias.narrow(0, 0, length)).unsqueeze(-1);
  return y;
}

at::Tensor tokenMajorMix(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias, TokenMask mask) {
  TORCH_CHECK(x.dim() == 3, "tokenMajorMix: x must be [L, B, D], got ", x.sizes());
  TORCH_CHECK(weight.dim() == 2 && weight.size(0) == weight.size(1), "tokenMajorMix: weight must be [T, T], got ",
              weight.sizes());
  const int64_t length = x.size(0);
  TORCH_CHECK(length <= weight.size(0), "tokenMajorMix: sequence length ", length, " exceeds the model's context ",
              weight.size(0));
  const bool full = length == weight.size(0);
  at::Tensor w = full ? weight : weight.narrow(0, 0, length).narrow(1, 0, length);
  // tril / triu: one kernel forward and one backward (the mask multiply takes a fill, a tril and a
  // product); masked entries still get exactly zero gradient.
  if (mask == TokenMask::kCausal) w = w.tril();
  if (mask == TokenMask::kFutureSkipOne) w = w.triu(2);
  at::Tensor y = at::mm(w, x.reshape({length, -1})).view(x.sizes());
  // A broadcast add, not addmm's C: on an H200 addmm's expanded-bias copy plus its beta = 1 GEMM took
  // 63 us against 41 us for this add (B=32 T=512 D=1024, bf16).
  if (bias.defined()) y = y + (full ? bias : bias.narrow(0, 0, length)).to(y.scalar_type()).view({length, 1, 1});
  return y;
}

}  // namespace mixerlab::kernels
