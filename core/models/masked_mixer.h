// The flat masked mixer (spec section 1): attention replaced by a causally masked token-mixing
// Conv1d(T, T, k) over the token axis, two LayerNorms, a 4x GELU feed-forward, no positional
// encoding, no final norm, untied head without bias. Submodule names follow the research code so
// named_parameters() are the safetensors names (wte, mixerblocks.N.*, lm_head).
#pragma once
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/normalization.h>

#include "core/models/language_model.h"

namespace mixerlab {

// Token-mixing convolution with a per-tap lower-triangular mask. Weight [T, T, k], bias [T].
// The mask is applied inside the graph (masked entries get zero gradient) and the stored upper
// triangle is zeroed at construction and after loading, so saved weights are lower-triangular.
class MaskedTokenConvImpl : public torch::nn::Module {
 public:
  MaskedTokenConvImpl(int64_t context_length, int64_t kernel_size);
  at::Tensor forward(const at::Tensor& x);  // [B, L, D] -> [B, L, D]
  void zeroMaskedEntries();
  at::Tensor maskedWeight() const;  // [T, T, k] with the upper triangle of every tap zeroed
  at::Tensor weight, bias;

 private:
  int64_t context_length_, kernel_size_;
};
TORCH_MODULE(MaskedTokenConv);

class MixerBlockImpl : public torch::nn::Module {
 public:
  explicit MixerBlockImpl(const ModelConfig& config);
  at::Tensor forward(const at::Tensor& x);
  torch::nn::LayerNorm seq_layernorm{nullptr}, patch_layernorm{nullptr};
  MaskedTokenConv conv{nullptr};
  torch::nn::Sequential patch_ff{nullptr};
};
TORCH_MODULE(MixerBlock);

class MaskedMixer : public LanguageModel {
 public:
  explicit MaskedMixer(const ModelConfig& config);
  at::Tensor forward(const at::Tensor& input_ids) override;
  at::Tensor hiddenStates(const at::Tensor& input_ids) override;
  std::map<std::string, at::Tensor> exportTensors() override;
  void afterLoad() override;

  torch::nn::Embedding wte{nullptr};
  torch::nn::ModuleList mixerblocks{nullptr};
  torch::nn::Linear lm_head{nullptr};  // null when tie_weights (the head reuses wte.weight)
};

}  // namespace mixerlab
