// Bidirectional transformer (docs/architectures.md): one token embedding, a forward and a reverse stack of
// causal Llama decoder layers (RoPE positions 0..L-1, no final norm). The reverse stack reads the
// flipped sequence, so R[t] has seen tokens >= t. Position t is predicted from F[t-1] + R[t+1]
// (zero at the edges), i.e. from tokens <= t-1 and >= t+1 but never token t itself; the loss is
// cross-entropy against the unshifted labels. Names: wte.weight, forward_model.model.model.layers.N.*,
// reverse_model.model.model.layers.N.* (each stack was a LlamaForCausalLM used for its layers only;
// its unused embedding, norm and head are skipped on import), lm_head.weight.
#pragma once
#include "core/models/transformers/llama_transformer.h"

namespace mixerlab {

// A stack of Llama decoder layers without embedding or final norm (the research "AbbreviatedModel").
class LlamaLayerStackImpl : public torch::nn::Module {
 public:
  explicit LlamaLayerStackImpl(const ModelConfig& config);
  at::Tensor forward(const at::Tensor& x, RotaryTables& rotary);
  torch::nn::ModuleList layers{nullptr};
};
TORCH_MODULE(LlamaLayerStack);

class BidirectionalTransformer : public LanguageModel {
 public:
  explicit BidirectionalTransformer(const ModelConfig& config);
  at::Tensor forward(const at::Tensor& input_ids) override;                            // logits at t predict token t
  at::Tensor hiddenStates(const at::Tensor& input_ids) override;                       // F~ + R~ [B, L, D]
  at::Tensor loss(const at::Tensor& logits, const at::Tensor& labels) const override;  // no shift
  int64_t targetCount(const at::Tensor& labels) const override;
  int64_t predictionOffset() const override { return 0; }  // logits at t score token t
  std::string fileTensorName(const std::string& name) const override;
  bool ignoresFileTensor(const std::string& name) const override;

  torch::nn::Embedding wte{nullptr};
  LlamaLayerStack forward_model{nullptr}, reverse_model{nullptr};
  torch::nn::Linear lm_head{nullptr};

 private:
  RotaryTables rotary_;
};

}  // namespace mixerlab
