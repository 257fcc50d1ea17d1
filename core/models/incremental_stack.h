// A family's one-token step: what the KV-cache decoder (core/analysis/decoders) drives to generate
// with an attention family. The family owns the arithmetic (embedding, one layer at a time over its
// caches, head); the decoder owns the rest (batches, the sliding window, CUDA-graph replay). A family
// offers one through its registry entry (GenerationSupport::make_stack in generation_support.h).
#pragma once

#include <cstdint>
#include <vector>

#include <ATen/core/Tensor.h>

namespace mixerlab {

// Keys and values of one attention layer, [B, H, T, hd], filled for positions 0..length-1.
struct KvCache {
  at::Tensor keys, values;
};

// Where new rows go: positions first..first+L-1, or (the static step the decoder may replay as a CUDA
// graph: one row) the position held in a device tensor ([1], int64), so no kernel takes a host number.
struct RowPosition {
  int64_t first = 0;
  at::Tensor device;
};

class IncrementalStack {
 public:
  virtual ~IncrementalStack() = default;
  virtual int64_t layers() const = 0;
  // ids [B, L] at `where` -> [B, L, D].
  virtual at::Tensor embed(const at::Tensor& ids, const RowPosition& where) = 0;
  virtual at::Tensor layer(int64_t index, const at::Tensor& x, const RowPosition& where) = 0;
  // Whether embed and layer take a device-held position (the static step).
  virtual bool takesDevicePositions() const { return true; }
  virtual at::Tensor head(const at::Tensor& x) = 0;  // [B, D] -> [B, V]
  // Fresh, empty caches for `batch` sequences of up to `context` tokens.
  virtual void reset(int64_t batch, int64_t context, const at::TensorOptions& options) = 0;
};

// `layers` empty caches of [batch, heads, context, head_dim].
std::vector<KvCache> emptyKvCaches(int64_t layers, int64_t batch, int64_t heads, int64_t context, int64_t head_dim,
                                   const at::TensorOptions& options);

// Writes k and v ([B, H, L, hd]) into the cache at `where` and returns the attention of the queries
// q ([B, H, L, hd], rotated where the family rotates) over every cached position up to each one.
at::Tensor cachedAttention(KvCache& cache, const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                           const RowPosition& where);

at::Tensor splitHeads(const at::Tensor& x, int64_t heads);  // [B, L, D] -> [B, H, L, hd]
at::Tensor mergeHeads(const at::Tensor& x);                 // [B, H, L, hd] -> [B, L, D]

}  // namespace mixerlab
