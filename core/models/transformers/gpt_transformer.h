// GPT-style baseline (docs/architectures.md, Hugging Face OpenAIGPTLMHeadModel defaults): learned absolute
// position embeddings, post-LN blocks (n = LN(x + Attn(x)); h = LN(n + MLP(n))), fused QKV with
// biases, tanh-approximate GELU MLP, dropout on embeddings / attention probabilities / residual
// branches, LM head tied to the token embedding. Weights are stored in HF's Conv1D orientation
// ([in, out]) under HF's names, so exported files load into OpenAIGPTLMHeadModel unchanged.
#pragma once
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/modules/normalization.h>

#include "core/models/language_model.h"
#include "core/util/field_set.h"

namespace mixerlab {

// The family's options (run.model.options of arch "gpt").
struct GptOptions {
  double dropout = 0.1;  // HF embd_pdrop = attn_pdrop = resid_pdrop
};
const FieldSet<GptOptions>& gptOptionFields();
GptOptions gptOptions(const ModelConfig& config);  // throws MixerLabError on bad options

// HF's Conv1D: y = x W + b with W stored [in, out]. Init N(0, 0.02), bias 0.
class GptConv1DImpl : public torch::nn::Module {
 public:
  GptConv1DImpl(int64_t in_features, int64_t out_features);
  at::Tensor forward(const at::Tensor& x);
  at::Tensor weight, bias;
};
TORCH_MODULE(GptConv1D);

class GptAttentionImpl : public torch::nn::Module {
 public:
  GptAttentionImpl(int64_t d_model, int64_t n_heads, double dropout, AttentionImpl impl);
  at::Tensor forward(const at::Tensor& x);  // explicitly causal
  GptConv1D c_attn{nullptr}, c_proj{nullptr};

 private:
  int64_t n_heads_, head_dim_;
  double dropout_;
  AttentionImpl impl_;
};
TORCH_MODULE(GptAttention);

class GptMlpImpl : public torch::nn::Module {
 public:
  GptMlpImpl(int64_t d_model, int64_t hidden, double dropout);
  at::Tensor forward(const at::Tensor& x);
  GptConv1D c_fc{nullptr}, c_proj{nullptr};

 private:
  double dropout_;
};
TORCH_MODULE(GptMlp);

class GptBlockImpl : public torch::nn::Module {
 public:
  GptBlockImpl(const ModelConfig& config, double dropout);
  at::Tensor forward(const at::Tensor& x);
  GptAttention attn{nullptr};
  torch::nn::LayerNorm ln_1{nullptr}, ln_2{nullptr};
  GptMlp mlp{nullptr};
};
TORCH_MODULE(GptBlock);

// The "transformer" submodule of OpenAIGPTLMHeadModel.
class GptBodyImpl : public torch::nn::Module {
 public:
  GptBodyImpl(const ModelConfig& config, double dropout);
  torch::nn::Embedding tokens_embed{nullptr}, positions_embed{nullptr};
  torch::nn::ModuleList h{nullptr};
};
TORCH_MODULE(GptBody);

class GptTransformer : public LanguageModel {
 public:
  explicit GptTransformer(const ModelConfig& config);
  at::Tensor forward(const at::Tensor& input_ids) override;
  at::Tensor hiddenStates(const at::Tensor& input_ids) override;  // last block output (post-LN)
  int64_t representationLayers() const override;
  at::Tensor tokenEmbeddingMatrix() override;
  at::Tensor layerOutput(const at::Tensor& embeds, int64_t layer) override;
  at::Tensor positionEmbeddings(int64_t length) override;
  std::map<std::string, at::Tensor> moduleTensors() override;  // adds lm_head.weight (= the embedding), as HF
  bool exportsTiedHead() const override { return true; }

  // options.dropout (HF embd_pdrop = attn_pdrop = resid_pdrop), default 0.1.

  GptBody transformer{nullptr};

 private:
  double dropout_;
};

}  // namespace mixerlab
