// Transfixer (docs/architectures.md): a Llama decoder whose layers also carry a causally masked token-mixing
// Conv1d(T, T, k) (the masked mixer's MaskedTokenConv, tril per tap, bias, PyTorch default init).
// Placements (options.conv_placement):
//   after_attention (research code): a = o_proj(Attn(RMSNorm(x))); h = x + a + Conv(a)
//   parallel ("attn + conv"):        h = x + Attn(RMSNorm(x)) + Conv(RMSNorm(x))  (same normed input)
//   before_attention ("conv -> attn"): h1 = x + Conv(RMSNorm_c(x)); h = h1 + Attn(RMSNorm(h1)),
//     RMSNorm_c being an extra norm `conv_layernorm` (only in this placement)
// followed in every placement by the usual SwiGLU sublayer. Names: HF Llama's plus
// model.layers.N.conv.{weight [T,T,k], bias [T]} (and model.layers.N.conv_layernorm.weight).
#pragma once
#include <string>

#include "core/models/mixers/masked_mixer.h"
#include "core/models/transformers/llama_transformer.h"
#include "core/util/field_set.h"

namespace mixerlab {

enum class ConvPlacement { AfterAttention, Parallel, BeforeAttention };

struct TransfixerOptions {
  std::string conv_placement = "after_attention";  // after_attention | parallel | before_attention
  int64_t conv_kernel_size = 1;
  std::string mask_mode = "graph";  // graph | inplace_compat (as the masked mixer's option)
  ConvPlacement placement() const;
  static TransfixerOptions fromConfig(const ModelConfig& config);  // throws MixerLabError on bad options
};
// The option fields (the one declaration behind parser, schema, form and docs).
const FieldSet<TransfixerOptions>& transfixerOptionFields();

class TransfixerLayerImpl : public torch::nn::Module {
 public:
  TransfixerLayerImpl(const ModelConfig& config, const TransfixerOptions& options);
  at::Tensor forward(const at::Tensor& x, RotaryTables& rotary);
  RMSNorm input_layernorm{nullptr}, post_attention_layernorm{nullptr};
  RMSNorm conv_layernorm{nullptr};  // before_attention only
  LlamaAttention self_attn{nullptr};
  MaskedTokenConv conv{nullptr};
  LlamaMlp mlp{nullptr};

 private:
  ConvPlacement placement_;
};
TORCH_MODULE(TransfixerLayer);

class TransfixerBodyImpl : public torch::nn::Module {
 public:
  TransfixerBodyImpl(const ModelConfig& config, const TransfixerOptions& options);
  torch::nn::Embedding embed_tokens{nullptr};
  torch::nn::ModuleList layers{nullptr};
  RMSNorm norm{nullptr};
};
TORCH_MODULE(TransfixerBody);

class Transfixer : public LanguageModel {
 public:
  explicit Transfixer(const ModelConfig& config);
  at::Tensor forward(const at::Tensor& input_ids) override;
  at::Tensor hiddenStates(const at::Tensor& input_ids) override;     // before the final norm
  at::Tensor finalNormStates(const at::Tensor& input_ids) override;  // after it
  int64_t representationLayers() const override;
  at::Tensor tokenEmbeddingMatrix() override;
  at::Tensor layerOutput(const at::Tensor& embeds, int64_t layer) override;
  std::map<std::string, at::Tensor> moduleTensors() override;  // conv weights with the mask applied
  void afterLoad() override;

  TransfixerBody model{nullptr};
  torch::nn::Linear lm_head{nullptr};

 private:
  RotaryTables rotary_;
};

}  // namespace mixerlab
