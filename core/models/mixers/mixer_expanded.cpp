// Expanded token mixing (see mixer_expanded.h).
#include "core/models/mixers/mixer_expanded.h"

#include <cmath>

#include <torch/torch.h>

#include "kernels/masked_token_mix.h"

namespace mixerlab {

RectMaskedConvImpl::RectMaskedConvImpl(int64_t in_tokens, int64_t out_tokens, bool with_bias, bool inplace_mask)
    : inplace_mask_(inplace_mask) {
  const double bound = 1.0 / std::sqrt(static_cast<double>(in_tokens));  // Conv1d default, fan_in = in * 1
  weight = register_parameter("weight", torch::empty({out_tokens, in_tokens, 1}).uniform_(-bound, bound));
  if (with_bias) bias = register_parameter("bias", torch::empty({out_tokens}).uniform_(-bound, bound));
  zeroMaskedEntries();
}

at::Tensor RectMaskedConvImpl::maskedWeight() const {
  return weight * kernels::tokenMask(kernels::TokenMask::kCausal, weight.size(0), weight.size(1), weight.options())
                      .unsqueeze(-1);
}

void RectMaskedConvImpl::zeroMaskedEntries() {
  torch::NoGradGuard no_grad;
  weight.copy_(maskedWeight());
}

at::Tensor RectMaskedConvImpl::forward(const at::Tensor& x, int64_t out_rows) {
  const int64_t in_used = x.size(1);
  at::Tensor w;
  if (inplace_mask_) {
    // Research mechanics: rewrite the storage (only when something is unmasked, which keeps the
    // version counter still between optimizer steps), then run the plain product.
    if (weight.select(2, 0).triu(1).abs().max().item<double>() > 0) zeroMaskedEntries();
    w = weight.select(2, 0).narrow(0, 0, out_rows).narrow(1, 0, in_used);
  } else {
    // The leading block of a tril matrix is tril with the same j <= i rule.
    w = weight.select(2, 0).narrow(0, 0, out_rows).narrow(1, 0, in_used);
    w = w * kernels::tokenMask(kernels::TokenMask::kCausal, out_rows, in_used, w.options());
  }
  // Explicit batched GEMM: LibTorch 1.13's at::matmul of a rectangular [R, L] matrix with a
  // [B, L, D] batch produced garbage gradients here (seen as ~1e20 entries in the weight grad).
  auto y = at::bmm(w.unsqueeze(0).expand({x.size(0), out_rows, in_used}), x);  // [B, out_rows, D]
  if (bias.defined()) y = y + bias.narrow(0, 0, out_rows).unsqueeze(-1);
  return y;
}

ExpandedTokenMixImpl::ExpandedTokenMixImpl(int64_t context_length, int64_t expansion, bool bias, bool inplace_mask)
    : hidden_tokens_(context_length * expansion) {
  conv0 = register_module("0", RectMaskedConv(context_length, hidden_tokens_, bias, inplace_mask));
  conv2 = register_module("2", RectMaskedConv(hidden_tokens_, context_length, bias, inplace_mask));
}

at::Tensor ExpandedTokenMixImpl::forward(const at::Tensor& x) {
  // All eT intermediate channels are computed from the L input tokens; conv2's leading L rows read
  // only channels j <= i < L, so outputs equal the prefix of a full-length run.
  auto h = torch::gelu(conv0->forward(x, hidden_tokens_));
  return conv2->forward(h, x.size(1));
}

}  // namespace mixerlab
