// GPT-style baseline (see gpt_transformer.h).
#include "core/models/transformers/gpt_transformer.h"

#include <cmath>
#include <limits>

#include <torch/torch.h>
#include <torch/version.h>

#include "core/models/transformers/causal_attention.h"

namespace mixerlab {
namespace F = torch::nn::functional;

namespace {
at::Tensor applyDropout(const at::Tensor& x, double p, bool training) {
  if (!training || p <= 0) return x;
  return F::dropout(x, F::DropoutFuncOptions().p(p).training(true));
}
torch::nn::LayerNorm layerNorm(const ModelConfig& c) {
  return torch::nn::LayerNorm(torch::nn::LayerNormOptions({c.d_model}).eps(c.norm_eps > 0 ? c.norm_eps : 1e-5));
}
torch::nn::Embedding normalEmbedding(int64_t rows, int64_t dim) {
  torch::nn::Embedding e(rows, dim);
  torch::NoGradGuard no_grad;
  e->weight.normal_(0.0, 0.02);
  return e;
}
}  // namespace

GptConv1DImpl::GptConv1DImpl(int64_t in_features, int64_t out_features) {
  weight = register_parameter("weight", torch::empty({in_features, out_features}).normal_(0.0, 0.02));
  bias = register_parameter("bias", torch::zeros({out_features}));
}

at::Tensor GptConv1DImpl::forward(const at::Tensor& x) { return torch::matmul(x, weight) + bias; }

GptAttentionImpl::GptAttentionImpl(int64_t d_model, int64_t n_heads, double dropout, AttentionImpl impl)
    : n_heads_(n_heads), head_dim_(d_model / n_heads), dropout_(dropout), impl_(impl) {
  c_attn = register_module("c_attn", GptConv1D(d_model, 3 * d_model));
  c_proj = register_module("c_proj", GptConv1D(d_model, d_model));
}

at::Tensor GptAttentionImpl::forward(const at::Tensor& x) {
  const int64_t batch = x.size(0), length = x.size(1), width = x.size(2);
  auto qkv = c_attn->forward(x).split(width, -1);  // HF order: query, key, value
  auto heads = [&](const at::Tensor& t) { return t.view({batch, length, n_heads_, head_dim_}).transpose(1, 2); };
  auto q = heads(qkv[0]), k = heads(qkv[1]), v = heads(qkv[2]);
  const double p = is_training() ? dropout_ : 0.0;
  auto attended = causalAttention(q, k, v, impl_, p);
  auto merged = attended.transpose(1, 2).reshape({batch, length, width});
  return applyDropout(c_proj->forward(merged), dropout_, is_training());
}

GptMlpImpl::GptMlpImpl(int64_t d_model, int64_t hidden, double dropout) : dropout_(dropout) {
  c_fc = register_module("c_fc", GptConv1D(d_model, hidden));
  c_proj = register_module("c_proj", GptConv1D(hidden, d_model));
}

at::Tensor GptMlpImpl::forward(const at::Tensor& x) {
  auto hidden = at::gelu(c_fc->forward(x), "tanh");  // HF "gelu_new"
  return applyDropout(c_proj->forward(hidden), dropout_, is_training());
}

GptBlockImpl::GptBlockImpl(const ModelConfig& c, double dropout) {
  attn = register_module("attn", GptAttention(c.d_model, c.n_heads, dropout, c.attention));
  ln_1 = register_module("ln_1", layerNorm(c));
  mlp = register_module("mlp", GptMlp(c.d_model, c.ff_mult * c.d_model, dropout));
  ln_2 = register_module("ln_2", layerNorm(c));
}

at::Tensor GptBlockImpl::forward(const at::Tensor& x) {
  auto n = ln_1->forward(x + attn->forward(x));  // post-LN
  return ln_2->forward(n + mlp->forward(n));
}

GptBodyImpl::GptBodyImpl(const ModelConfig& c, double dropout) {
  tokens_embed = register_module("tokens_embed", normalEmbedding(c.vocab_size, c.d_model));
  positions_embed = register_module("positions_embed", normalEmbedding(c.context_length, c.d_model));
  h = register_module("h", torch::nn::ModuleList());
  for (int64_t i = 0; i < c.n_layers; ++i) h->push_back(GptBlock(c, dropout));
}

const FieldSet<GptOptions>& gptOptionFields() {
  static const auto fields = FieldSet<GptOptions>().group("GPT").number(
      "dropout", &GptOptions::dropout, 0.0, 0.9, "Dropout",
      "embedding, attention-probability and residual dropout (HF embd_pdrop, attn_pdrop, resid_pdrop); off in "
      "evaluation; the RNG state is checkpointed so resume stays exact");
  return fields;
}

GptOptions gptOptions(const ModelConfig& c) { return gptOptionFields().read(c.options, "", "options"); }

GptTransformer::GptTransformer(const ModelConfig& c) : LanguageModel(c), dropout_(gptOptions(c).dropout) {
  transformer = register_module("transformer", GptBody(c, dropout_));
}

at::Tensor GptTransformer::hiddenStates(const at::Tensor& input_ids) {
  auto positions = torch::arange(input_ids.size(1), input_ids.options().dtype(torch::kLong));
  auto x = transformer->tokens_embed->forward(input_ids) + transformer->positions_embed->forward(positions);
  x = applyDropout(x, dropout_, is_training());
  return layerOutput(x, representationLayers());
}

int64_t GptTransformer::representationLayers() const { return static_cast<int64_t>(transformer->h->size()); }
at::Tensor GptTransformer::tokenEmbeddingMatrix() { return transformer->tokens_embed->weight; }
at::Tensor GptTransformer::positionEmbeddings(int64_t length) {
  return transformer->positions_embed->weight.narrow(0, 0, length);
}

at::Tensor GptTransformer::layerOutput(const at::Tensor& embeds, int64_t layer) {
  auto x = embeds;
  for (int64_t i = 0; i < layer; ++i) x = transformer->h[i]->as<GptBlock>()->forward(x);
  return x;
}

at::Tensor GptTransformer::forward(const at::Tensor& input_ids) {
  return F::linear(hiddenStates(input_ids), transformer->tokens_embed->weight);  // tied head, no final norm
}

std::map<std::string, at::Tensor> GptTransformer::moduleTensors() {
  auto out = LanguageModel::moduleTensors();
  out["lm_head.weight"] = transformer->tokens_embed->weight.detach().clone();
  return out;
}

}  // namespace mixerlab
