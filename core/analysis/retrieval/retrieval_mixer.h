// The retrieval model (the research's RetrievalMixer, docs/retrieval.md): over a sample [query, c-1
// candidates] of sentence embeddings [B, c, D], N bidirectional mixer blocks (x + Conv(LN(x)) with an
// UNMASKED Conv1d(c, c, 1) across the c slots, then x + FF(LN(x)) with a 4x GELU feed-forward) and a
// Linear(D, 1) head score every slot; the query's own slot is dropped, leaving [B, c-1] scores that
// cross-entropy trains against the positive's slot. No embedding, no LM head, no mask.
#pragma once
#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/normalization.h>

namespace mixerlab {

class RetrievalBlockImpl : public torch::nn::Module {
 public:
  RetrievalBlockImpl(int64_t slots, int64_t width);
  at::Tensor forward(const at::Tensor& x);  // [B, c, D]
  torch::nn::LayerNorm seq_layernorm{nullptr}, patch_layernorm{nullptr};
  at::Tensor conv_weight, conv_bias;  // [c, c], [c]: every slot reads every slot
  torch::nn::Linear ff_in{nullptr}, ff_out{nullptr};
};
TORCH_MODULE(RetrievalBlock);

class RetrievalMixerImpl : public torch::nn::Module {
 public:
  RetrievalMixerImpl(int64_t slots, int64_t width, int64_t layers);
  at::Tensor forward(const at::Tensor& samples);  // [B, c, D] -> scores [B, c-1]
  torch::nn::ModuleList blocks{nullptr};
  torch::nn::Linear head{nullptr};
};
TORCH_MODULE(RetrievalMixer);

}  // namespace mixerlab
