// Cached attention for the families' one-token steps (see incremental_stack.h).
#include "core/models/incremental_stack.h"

#include <cmath>
#include <limits>

#include <torch/torch.h>

namespace mixerlab {
namespace {

// One new row per sequence at a device-held position, over the whole cache with the later positions
// masked: the static form of cachedAttention.
at::Tensor cachedAttentionAt(KvCache& cache, const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                             const at::Tensor& position) {
  cache.keys.index_copy_(2, position, k);
  cache.values.index_copy_(2, position, v);
  auto scores = torch::matmul(q, cache.keys.transpose(-2, -1)) / std::sqrt(static_cast<double>(q.size(3)));
  const auto key_positions = torch::arange(cache.keys.size(2), position.options());
  scores = scores.masked_fill(key_positions > position, -std::numeric_limits<double>::infinity());  // [B,H,1,T]
  return torch::matmul(torch::softmax(scores, -1), cache.values);
}

}  // namespace

std::vector<KvCache> emptyKvCaches(int64_t layers, int64_t batch, int64_t heads, int64_t context, int64_t head_dim,
                                   const at::TensorOptions& options) {
  std::vector<KvCache> caches;
  for (int64_t i = 0; i < layers; ++i) {
    caches.push_back({torch::zeros({batch, heads, context, head_dim}, options),
                      torch::zeros({batch, heads, context, head_dim}, options)});
  }
  return caches;
}

at::Tensor cachedAttention(KvCache& cache, const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                           const RowPosition& where) {
  if (where.device.defined()) return cachedAttentionAt(cache, q, k, v, where.device);
  const int64_t first = where.first, length = q.size(2), end = first + length, head_dim = q.size(3);
  cache.keys.narrow(2, first, length).copy_(k);
  cache.values.narrow(2, first, length).copy_(v);
  auto keys = cache.keys.narrow(2, 0, end), values = cache.values.narrow(2, 0, end);
  auto scores = torch::matmul(q, keys.transpose(-2, -1)) / std::sqrt(static_cast<double>(head_dim));  // [B,H,L,end]
  if (length > 1) {
    // Query row r (position first + r) sees keys 0..first+r.
    auto query_pos = torch::arange(first, end, torch::TensorOptions().dtype(torch::kLong).device(q.device()));
    auto key_pos = torch::arange(end, torch::TensorOptions().dtype(torch::kLong).device(q.device()));
    auto future = key_pos.unsqueeze(0) > query_pos.unsqueeze(1);
    scores = scores.masked_fill(future, -std::numeric_limits<double>::infinity());
  }
  return torch::matmul(torch::softmax(scores, -1), values);  // [B, H, L, hd]
}

at::Tensor splitHeads(const at::Tensor& x, int64_t heads) {
  return x.view({x.size(0), x.size(1), heads, x.size(2) / heads}).transpose(1, 2);
}
at::Tensor mergeHeads(const at::Tensor& x) {
  return x.transpose(1, 2).reshape({x.size(0), x.size(2), x.size(1) * x.size(3)});
}

}  // namespace mixerlab
