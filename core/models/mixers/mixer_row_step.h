// The cached mixer's one-token step as one fused fp32 CPU routine: the flat, kernel-1 masked mixer's
// blocks (LayerNorm, the new row of the causal token mix, residual, LayerNorm, Linear-GELU-Linear,
// residual) and the head, on raw pointers with preallocated buffers, the matrix-vector products
// split over a PhaseTeam. Decoding one token is a chain of small products; through ATen each of
// some fifty ops paid dispatch, allocation and a BLAS thread hand-off, about half of the step's
// time (docs/generation.md). The cached stack (mixer_cached_stack.cpp) describes its model's layers
// as MixerRowLayer; the decoder falls back to the ATen path for anything this does not cover.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>

#include "kernels/row_kernels.h"

namespace mixerlab {
namespace kernels {
class PhaseTeam;
}

// One block, as tensors the step reads (fp32, contiguous, CPU). An undefined norm weight with
// has_norm false skips that LayerNorm.
struct MixerRowLayer {
  at::Tensor mix_weight;        // [T, T]: the applied token-mixing weight (row i mixes positions 0..i)
  std::vector<float> mix_bias;  // [T] or empty
  at::Tensor rows;              // [T, D]: the mixing inputs of positions so far (the decoder's row cache)
  bool has_norm1 = false, has_norm2 = false;
  at::Tensor norm1_weight, norm1_bias, norm2_weight, norm2_bias;  // [D] each, or undefined
  double norm1_eps = 1e-5, norm2_eps = 1e-5;
  bool residual = true;
  bool feed_forward = true, gelu = true;
  at::Tensor ff1_weight, ff1_bias, ff2_weight, ff2_bias;  // [F, D], [F], [D, F], [D]; biases may be undefined
};

struct MixerRowHead {
  at::Tensor weight, bias;  // [V, D], [V] or undefined
  bool relu = false;        // ReLU before the head
};

// Which path the cached mixer's one-token steps take: the fused step where it covers the model
// (the default), or ATen ops always (the active compute paths' decode_step).
using CachedMixerStepPath = kernels::DecodeStepPath;
CachedMixerStepPath requestedCachedMixerStepPath();

// Threads for a step's team given the intra-op thread count: one more than that when it is above 1.
// After a prefill, the BLAS library's threads spin for about 0.1 s, often on the cores the team
// needs; with one extra team thread some team thread is nearly always running on each core, and
// since chunks are claimed rather than assigned, whichever threads run do the work (2 cores: 6 of
// 100 passes slowed instead of 24). 1 stays 1: a single-thread setting means one core.
int rowStepTeamSize(int intra_op_threads);

class MixerRowStep {
 public:
  // `team` (shared with the decoder, may be reused across sequences) runs the products.
  MixerRowStep(std::vector<MixerRowLayer> layers, MixerRowHead head, std::shared_ptr<kernels::PhaseTeam> team);
  ~MixerRowStep();

  // Position `position` (every earlier one already in each layer's rows) with the token whose
  // embedding row is `embedding` (D floats). Writes the new row of every layer's cache and returns
  // the logits [V]: a buffer this step owns, overwritten by the next call.
  const at::Tensor& step(const float* embedding, int64_t position);

  // "fused fp32 step (avx512 products, 3 threads)": for the decoder's description.
  std::string describe() const;

 private:
  struct LayerState;
  void mixRow(LayerState& layer, const float* normed, float* out, int64_t position);
  int64_t context_, width_;
  std::vector<LayerState> layers_;
  MixerRowHead head_;
  std::shared_ptr<kernels::PhaseTeam> team_;
  const float *head_weight_ = nullptr, *head_bias_ = nullptr;
  kernels::RowSimd simd_;  // read on the constructing thread (a bad MIXERLAB_ROW_SIMD throws there)
  std::vector<float> x_, normed_, mixed_, hidden_, inner_;
  at::Tensor logits_;
};

}  // namespace mixerlab
