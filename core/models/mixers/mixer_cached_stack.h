// The masked mixer's one-token step for the cached-mixer decoder (core/analysis/decoders): token
// mixing is causal and linear, so each layer keeps the rows its mixing reads (its normalised inputs;
// per head their projections; for the expanded mixer also the intermediate channels) and computes
// a new position's output as one product over them: O(t*D) per layer per token instead of a full
// forward. Flat, kernel-k, softmax, softmax_compat (one application, as one forward does), expanded
// and multi-head mixing (intended and the research's compat loop) are covered. Positions are
// absolute: the caller stops at the window's end. A batch of B sequences keeps B rows per position
// ([B, T, width] caches). The family owns this arithmetic; the decoder owns batches, the window,
// CUDA graphs and the choice of the fused step (mixer_row_step.h), which this stack describes.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include "core/models/mixers/mixer_row_step.h"

namespace mixerlab {

class MaskedMixer;
namespace mixer_cache {
class CachedBlock;
}

class MixerCachedStack {
 public:
  explicit MixerCachedStack(MaskedMixer& model);
  ~MixerCachedStack();
  MixerCachedStack(const MixerCachedStack&) = delete;
  MixerCachedStack& operator=(const MixerCachedStack&) = delete;

  int64_t context() const;
  int64_t vocabSize() const;
  c10::Device device() const;
  // Fresh, empty caches for `batch` sequences of up to context() tokens.
  void reset(int64_t batch);
  // Every block mixes one new row at a time (flat kernel-1): forwardRow and forwardRowAt apply.
  bool mixesRows() const;
  // ids [B, L] at positions first..first+L-1 (written into the caches) -> logits [B, V] after the last.
  at::Tensor forward(const at::Tensor& ids, int64_t first);
  // One new token per sequence (host ids, checked) at position `first` -> logits [B, V]: about a
  // dozen small ops per block (matrix-vector products for a batch of one).
  at::Tensor forwardRow(const std::vector<int64_t>& ids, int64_t first);
  // The same with the ids [B] and the position [1] in device tensors: the static step the decoder
  // may replay as a CUDA graph (no host number in any kernel).
  at::Tensor forwardRowAt(const at::Tensor& ids, const at::Tensor& position);
  // The fused fp32 CPU step over these caches (one sequence), or null when a block or the head is
  // not of the kinds it covers (flat kernel-1 mix; Linear, GELU or nothing, Linear feed-forward).
  std::unique_ptr<MixerRowStep> makeRowStep(std::shared_ptr<kernels::PhaseTeam> team) const;
  // The embedding row of `id`, as the fused step reads it.
  const float* embeddingRow(int64_t id) const;

 private:
  at::Tensor logitsOf(at::Tensor x) const;  // the head (ReLU first where the model has one): [B, D] -> [B, V]

  MaskedMixer& model_;
  bool relu_head_;
  std::vector<mixer_cache::CachedBlock> blocks_;
};

}  // namespace mixerlab
