// Llama-style decoder-only transformer (docs/architectures.md): pre-norm RMSNorm, rotary positions
// (rotate-half pairing, theta 10000), causal multi-head attention without biases, SwiGLU MLP with
// intermediate ff_mult*D (4D as in the research), final RMSNorm, untied head. Submodule names
// follow Hugging Face's LlamaForCausalLM (model.embed_tokens, model.layers.N.*, model.norm, lm_head).
#pragma once
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/modules/linear.h>

#include "core/models/language_model.h"
#include "core/util/field_set.h"

namespace mixerlab {

// The family's options (run.model.options of arch "llama").
struct LlamaOptions {
  // Token embedding drawn from N(0, std); 0 keeps Hugging Face's N(0, 0.02) (N(0, 1) for the
  // completion model). Inversion depends on this scale (paper 2.3), so the reproduction varies it.
  double embedding_init_std = 0.0;
};
const FieldSet<LlamaOptions>& llamaOptionFields();
LlamaOptions llamaOptions(const ModelConfig& config);  // throws MixerLabError on bad options

class RMSNormImpl : public torch::nn::Module {
 public:
  RMSNormImpl(int64_t dim, double eps);
  at::Tensor forward(const at::Tensor& x);
  at::Tensor weight;

 private:
  double eps_;
};
TORCH_MODULE(RMSNorm);

// Rotary position tables for one head dimension, cached per (length, device).
class RotaryTables {
 public:
  RotaryTables(int64_t head_dim, double theta) : head_dim_(head_dim), theta_(theta) {}
  // q or k [B, H, L, hd] -> rotated, positions start..start+L-1 (start > 0: incremental decoding).
  at::Tensor apply(const at::Tensor& x, int64_t start = 0);
  // One position held in a device tensor ([1], int64), for a decoder's static step (no host number
  // in any kernel): x [B, H, 1, hd]. The tables must already cover it (prepare).
  at::Tensor applyAt(const at::Tensor& x, const at::Tensor& position);
  // Makes the tables cover positions 0..positions-1 in `options`' dtype and device at once, so an
  // incremental decoder does not rebuild them for every new position.
  void prepare(int64_t positions, const at::TensorOptions& options);

 private:
  at::Tensor rotate(const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin) const;
  int64_t head_dim_;
  double theta_;
  at::Tensor cos_, sin_;
};

class LlamaAttentionImpl : public torch::nn::Module {
 public:
  explicit LlamaAttentionImpl(const ModelConfig& config);
  at::Tensor forward(const at::Tensor& x, RotaryTables& rotary);
  torch::nn::Linear q_proj{nullptr}, k_proj{nullptr}, v_proj{nullptr}, o_proj{nullptr};

 private:
  int64_t n_heads_, head_dim_;
  AttentionImpl impl_;
};
TORCH_MODULE(LlamaAttention);

class LlamaMlpImpl : public torch::nn::Module {
 public:
  explicit LlamaMlpImpl(const ModelConfig& config);
  at::Tensor forward(const at::Tensor& x);
  torch::nn::Linear gate_proj{nullptr}, up_proj{nullptr}, down_proj{nullptr};
};
TORCH_MODULE(LlamaMlp);

class LlamaDecoderLayerImpl : public torch::nn::Module {
 public:
  explicit LlamaDecoderLayerImpl(const ModelConfig& config);
  at::Tensor forward(const at::Tensor& x, RotaryTables& rotary);
  RMSNorm input_layernorm{nullptr}, post_attention_layernorm{nullptr};
  LlamaAttention self_attn{nullptr};
  LlamaMlp mlp{nullptr};
};
TORCH_MODULE(LlamaDecoderLayer);

// True when the config builds the research's one-step completion model (docs/architectures.md): its embedding
// and head keep PyTorch's default init and there is no final norm (the research ran the layers of
// two LlamaForCausalLM stacks directly, between a plain nn.Embedding and nn.Linear).
bool llamaIsCompletionModel(const ModelConfig& config);

// The "model" submodule of LlamaForCausalLM: embeddings, layers, final norm (null in the
// completion model).
class LlamaBodyImpl : public torch::nn::Module {
 public:
  explicit LlamaBodyImpl(const ModelConfig& config);
  torch::nn::Embedding embed_tokens{nullptr};
  torch::nn::ModuleList layers{nullptr};
  RMSNorm norm{nullptr};
};
TORCH_MODULE(LlamaBody);

class LlamaTransformer : public LanguageModel {
 public:
  explicit LlamaTransformer(const ModelConfig& config);
  at::Tensor forward(const at::Tensor& input_ids) override;
  at::Tensor hiddenStates(const at::Tensor& input_ids) override;     // last layer output, before the final norm
  at::Tensor finalNormStates(const at::Tensor& input_ids) override;  // after it (the completion model has none)
  int64_t representationLayers() const override;
  at::Tensor tokenEmbeddingMatrix() override;
  at::Tensor layerOutput(const at::Tensor& embeds, int64_t layer) override;
  std::map<std::string, at::Tensor> moduleTensors() override;

  LlamaBody model{nullptr};
  torch::nn::Linear lm_head{nullptr};  // null when tie_weights

 private:
  RotaryTables rotary_;
};

}  // namespace mixerlab
