// Llama-style transformer (see llama_transformer.h).
#include "core/models/transformers/llama_transformer.h"

#include <cmath>
#include <limits>

#include <torch/torch.h>
#include <torch/version.h>

#include "core/models/norm_eps.h"
#include "core/models/transformers/causal_attention.h"

namespace mixerlab {
namespace F = torch::nn::functional;

namespace {
// No bias, weights drawn as Hugging Face's Llama initialises them.
torch::nn::Linear llamaLinear(int64_t in, int64_t out) {
  torch::nn::Linear linear(torch::nn::LinearOptions(in, out).bias(false));
  torch::NoGradGuard no_grad;
  linear->weight.normal_(0.0, 0.02);  // Hugging Face Llama init
  return linear;
}
constexpr double kLlamaNormEps = 1e-6;
}  // namespace

RMSNormImpl::RMSNormImpl(int64_t dim, double eps) : eps_(eps) {
  weight = register_parameter("weight", torch::ones({dim}));
}

at::Tensor RMSNormImpl::forward(const at::Tensor& x) {
  // Normalised in fp32 and cast back, so a bf16/fp16 forward keeps the mean of squares exact
  // enough (fp32/fp64 input: nothing is cast, the result unchanged).
  const auto x32 = (x.scalar_type() == at::kHalf || x.scalar_type() == at::kBFloat16) ? x.to(torch::kFloat) : x;
  auto variance = x32.pow(2).mean(-1, /*keepdim=*/true);
  return weight * (x32 * torch::rsqrt(variance + eps_)).to(x.scalar_type());
}

void RotaryTables::prepare(int64_t positions, const at::TensorOptions& options) {
  if (cos_.defined() && cos_.size(0) >= positions && cos_.device() == options.device() &&
      cos_.scalar_type() == options.dtype()) {
    return;
  }
  auto opts = torch::TensorOptions().dtype(torch::kFloat64);
  auto inv_freq = torch::pow(theta_, -torch::arange(0, head_dim_, 2, opts) / static_cast<double>(head_dim_));
  auto freqs = torch::outer(torch::arange(positions, opts), inv_freq);  // [L, hd/2]
  auto angles = torch::cat({freqs, freqs}, -1);                         // rotate-half pairing: dim i with i + hd/2
  cos_ = angles.cos().to(options);
  sin_ = angles.sin().to(options);
}

at::Tensor RotaryTables::apply(const at::Tensor& x, int64_t start) {
  const int64_t length = x.size(2), end = start + length;
  prepare(end, x.options());
  return rotate(x, cos_.narrow(0, start, length), sin_.narrow(0, start, length));
}

at::Tensor RotaryTables::applyAt(const at::Tensor& x, const at::Tensor& position) {
  return rotate(x, cos_.index_select(0, position), sin_.index_select(0, position));
}

at::Tensor RotaryTables::rotate(const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin) const {
  const int64_t half = head_dim_ / 2;
  auto rotated_half = torch::cat({-x.narrow(-1, half, half), x.narrow(-1, 0, half)}, -1);
  return x * cos + rotated_half * sin;
}

LlamaAttentionImpl::LlamaAttentionImpl(const ModelConfig& c)
    : n_heads_(c.n_heads), head_dim_(c.d_model / c.n_heads), impl_(c.attention) {
  q_proj = register_module("q_proj", llamaLinear(c.d_model, c.d_model));
  k_proj = register_module("k_proj", llamaLinear(c.d_model, c.d_model));
  v_proj = register_module("v_proj", llamaLinear(c.d_model, c.d_model));
  o_proj = register_module("o_proj", llamaLinear(c.d_model, c.d_model));
}

at::Tensor LlamaAttentionImpl::forward(const at::Tensor& x, RotaryTables& rotary) {
  const int64_t batch = x.size(0), length = x.size(1);
  auto heads = [&](const at::Tensor& t) { return t.view({batch, length, n_heads_, head_dim_}).transpose(1, 2); };
  auto q = rotary.apply(heads(q_proj->forward(x)));
  auto k = rotary.apply(heads(k_proj->forward(x)));
  auto v = heads(v_proj->forward(x));
  auto attended = causalAttention(q, k, v, impl_);
  return o_proj->forward(attended.transpose(1, 2).reshape({batch, length, n_heads_ * head_dim_}));
}

LlamaMlpImpl::LlamaMlpImpl(const ModelConfig& c) {
  gate_proj = register_module("gate_proj", llamaLinear(c.d_model, c.ff_mult * c.d_model));
  up_proj = register_module("up_proj", llamaLinear(c.d_model, c.ff_mult * c.d_model));
  down_proj = register_module("down_proj", llamaLinear(c.ff_mult * c.d_model, c.d_model));
}

at::Tensor LlamaMlpImpl::forward(const at::Tensor& x) {
  return down_proj->forward(F::silu(gate_proj->forward(x)) * up_proj->forward(x));
}

LlamaDecoderLayerImpl::LlamaDecoderLayerImpl(const ModelConfig& c) {
  self_attn = register_module("self_attn", LlamaAttention(c));
  mlp = register_module("mlp", LlamaMlp(c));
  input_layernorm = register_module("input_layernorm", RMSNorm(c.d_model, normEps(c, kLlamaNormEps)));
  post_attention_layernorm = register_module("post_attention_layernorm", RMSNorm(c.d_model, normEps(c, kLlamaNormEps)));
}

at::Tensor LlamaDecoderLayerImpl::forward(const at::Tensor& x, RotaryTables& rotary) {
  auto h = x + self_attn->forward(input_layernorm->forward(x), rotary);
  return h + mlp->forward(post_attention_layernorm->forward(h));
}

bool llamaIsCompletionModel(const ModelConfig& c) { return c.objective == ModelObjective::kOneStepCompletion; }

LlamaBodyImpl::LlamaBodyImpl(const ModelConfig& c) {
  // The completion model's embedding is a plain nn.Embedding (N(0, 1)) in the research.
  embed_tokens = register_module("embed_tokens", torch::nn::Embedding(c.vocab_size, c.d_model));
  if (!llamaIsCompletionModel(c)) {
    torch::NoGradGuard no_grad;
    embed_tokens->weight.normal_(0.0, 0.02);
  }
  layers = register_module("layers", torch::nn::ModuleList());
  for (int64_t i = 0; i < c.n_layers; ++i) layers->push_back(LlamaDecoderLayer(c));
  if (!llamaIsCompletionModel(c)) norm = register_module("norm", RMSNorm(c.d_model, normEps(c, kLlamaNormEps)));
}

const FieldSet<LlamaOptions>& llamaOptionFields() {
  static const auto fields =
      FieldSet<LlamaOptions>()
          .group("Initialisation")
          .number("embedding_init_std", &LlamaOptions::embedding_init_std, 0.0, 10.0, "Embedding init std",
                  "token embedding drawn from N(0, std); 0 = Hugging Face's N(0, 0.02). Representation inversion "
                  "depends on "
                  "this scale (paper 2.3)");
  return fields;
}

LlamaOptions llamaOptions(const ModelConfig& c) { return llamaOptionFields().read(c.options, "", "options"); }

LlamaTransformer::LlamaTransformer(const ModelConfig& c)
    : LanguageModel(c), rotary_(c.d_model / c.n_heads, c.rope_theta) {
  model = register_module("model", LlamaBody(c));
  if (!c.tie_weights) {
    // The completion model's head is a default-initialised nn.Linear in the research.
    lm_head = register_module("lm_head",
                              llamaIsCompletionModel(c)
                                  ? torch::nn::Linear(torch::nn::LinearOptions(c.d_model, c.vocab_size).bias(false))
                                  : llamaLinear(c.d_model, c.vocab_size));
  }
  if (const double std = llamaOptions(c).embedding_init_std; std > 0) {
    torch::NoGradGuard no_grad;
    model->embed_tokens->weight.normal_(0.0, std);
  }
  supports_layer_hook_ = true;
}

at::Tensor LlamaTransformer::hiddenStates(const at::Tensor& input_ids) {
  return layerOutput(model->embed_tokens->forward(input_ids), representationLayers());
}

at::Tensor LlamaTransformer::finalNormStates(const at::Tensor& input_ids) {
  const at::Tensor hidden = hiddenStates(input_ids);
  return model->norm ? model->norm->forward(hidden) : hidden;
}

int64_t LlamaTransformer::representationLayers() const { return static_cast<int64_t>(model->layers->size()); }
at::Tensor LlamaTransformer::tokenEmbeddingMatrix() { return model->embed_tokens->weight; }

at::Tensor LlamaTransformer::layerOutput(const at::Tensor& embeds, int64_t layer) {
  auto x = embeds;
  for (int64_t i = 0; i < layer; ++i)
    x = applyLayerHook(i, model->layers[i]->as<LlamaDecoderLayer>()->forward(x, rotary_));
  return x;
}

at::Tensor LlamaTransformer::forward(const at::Tensor& input_ids) {
  auto x = hiddenStates(input_ids);
  if (model->norm) x = model->norm->forward(x);
  return lm_head ? lm_head->forward(x) : F::linear(x, model->embed_tokens->weight);
}

std::map<std::string, at::Tensor> LlamaTransformer::moduleTensors() {
  auto out = LanguageModel::moduleTensors();
  if (!lm_head) out["lm_head.weight"] = model->embed_tokens->weight.detach();
  return out;
}

}  // namespace mixerlab
