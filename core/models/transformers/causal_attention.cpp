// Causal attention, fused or eager (see causal_attention.h).
#include "core/models/transformers/causal_attention.h"

#include <cmath>
#include <limits>

#include <torch/torch.h>
#include <torch/version.h>

namespace mixerlab {
namespace {

constexpr bool kFusedAttentionBuilt = TORCH_VERSION_MAJOR >= 2;

// Scores [B, H, T, T] = q k^T / sqrt(head_dim), future positions -inf, softmax (in fp32 for fp16/bf16
// inputs, cast back), dropout, then the weighted sum of v.
at::Tensor eagerAttention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, double dropout_p) {
  const int64_t length = q.size(2);
  auto scores = torch::matmul(q, k.transpose(-2, -1)) / std::sqrt(static_cast<double>(q.size(-1)));
  const auto future =
      torch::ones({length, length}, torch::TensorOptions().dtype(torch::kBool).device(q.device())).triu(1);
  scores = scores.masked_fill(future, -std::numeric_limits<float>::infinity());
  const bool reduced = q.scalar_type() == torch::kHalf || q.scalar_type() == torch::kBFloat16;
  auto weights = torch::softmax(scores, -1, reduced ? torch::kFloat : q.scalar_type()).to(q.scalar_type());
  if (dropout_p > 0) weights = torch::dropout(weights, dropout_p, /*train=*/true);
  return torch::matmul(weights, v);
}

}  // namespace

AttentionImpl attentionImplRun(AttentionImpl requested) {
  return kFusedAttentionBuilt ? requested : AttentionImpl::kEager;
}

at::Tensor causalAttention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, AttentionImpl impl,
                           double dropout_p) {
#if TORCH_VERSION_MAJOR >= 2
  if (impl == AttentionImpl::kSdpa) return at::scaled_dot_product_attention(q, k, v, {}, dropout_p, /*is_causal=*/true);
#else
  (void)impl;
#endif
  return eagerAttention(q, k, v, dropout_p);
}

}  // namespace mixerlab
