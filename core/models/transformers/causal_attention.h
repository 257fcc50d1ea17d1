// The one place a transformer turns per-head queries, keys and values into attended values, causally.
// Two implementations, chosen per model (model.attention):
// - sdpa: LibTorch's fused scaled_dot_product_attention (flash or memory-efficient kernels on a GPU),
//   which never stores the [B, H, T, T] score tensor;
// - eager: the scores materialised, masked and soft-maxed in fp32, as Hugging Face's eager attention
//   (what the research's 32-head Llamas ran), so time and memory carry the T^2 term.
// LibTorch 1.13 has no fused kernel: there sdpa computes the eager arithmetic, and
// attentionImplRun says so, for run.json and the reports.
#pragma once
#include <ATen/ATen.h>

#include "core/models/model_config.h"

namespace mixerlab {

// The implementation that actually runs for `requested` with the LibTorch this build links.
AttentionImpl attentionImplRun(AttentionImpl requested);

// q, k, v: [B, H, T, head_dim]; position i attends to positions <= i. dropout_p > 0 drops attention
// weights (training only: pass 0 in eval). Returns [B, H, T, head_dim].
at::Tensor causalAttention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, AttentionImpl impl,
                           double dropout_p = 0.0);

}  // namespace mixerlab
