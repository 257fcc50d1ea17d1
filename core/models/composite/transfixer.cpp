// Transfixer: Llama layers with a masked token-mixing conv (see transfixer.h).
#include "core/models/composite/transfixer.h"

#include <torch/torch.h>

#include "core/models/norm_eps.h"

namespace mixerlab {

namespace {
constexpr double kTransfixerNormEps = 1e-6;  // as Llama
}  // namespace

const FieldSet<TransfixerOptions>& transfixerOptionFields() {
  static const auto fields =
      FieldSet<TransfixerOptions>()
          .group("Transfixer")
          .choice("conv_placement", &TransfixerOptions::conv_placement,
                  {"after_attention", "parallel", "before_attention"}, "Conv placement",
                  "after_attention: h = x + a + Conv(a), a = o_proj(Attn(RMSNorm(x))) (the research code); parallel: "
                  "h = x + Attn(N(x)) + Conv(N(x)); before_attention: h1 = x + Conv(N_c(x)) with its own RMSNorm "
                  "conv_layernorm, then h = h1 + Attn(N(h1)); the last two are MixerLab's readings of the research")
          .integer("conv_kernel_size", &TransfixerOptions::conv_kernel_size, 1, 64, "Conv kernel size",
                   "k of the masked Conv1d(T,T,k) (bias, per-tap causal mask, 'same' padding along D)")
          .choice("mask_mode", &TransfixerOptions::mask_mode, {"graph", "inplace_compat"}, "Mask mode",
                  "inplace_compat: the research fork's mechanics, overwriting the stored conv weight with tril(W) "
                  "every forward, so masked entries get gradients that count in clipping (docs/fidelity.md)");
  return fields;
}

ConvPlacement TransfixerOptions::placement() const {
  if (conv_placement == "parallel") return ConvPlacement::Parallel;
  if (conv_placement == "before_attention") return ConvPlacement::BeforeAttention;
  return ConvPlacement::AfterAttention;
}

TransfixerOptions TransfixerOptions::fromConfig(const ModelConfig& c) {
  return transfixerOptionFields().read(c.options, "", "options");
}

TransfixerLayerImpl::TransfixerLayerImpl(const ModelConfig& c, const TransfixerOptions& o) : placement_(o.placement()) {
  self_attn = register_module("self_attn", LlamaAttention(c));
  mlp = register_module("mlp", LlamaMlp(c));
  input_layernorm = register_module("input_layernorm", RMSNorm(c.d_model, normEps(c, kTransfixerNormEps)));
  post_attention_layernorm =
      register_module("post_attention_layernorm", RMSNorm(c.d_model, normEps(c, kTransfixerNormEps)));
  if (placement_ == ConvPlacement::BeforeAttention) {
    conv_layernorm = register_module("conv_layernorm", RMSNorm(c.d_model, normEps(c, kTransfixerNormEps)));
  }
  TokenConvSettings settings;
  settings.inplace_mask = o.mask_mode == "inplace_compat";
  conv = register_module("conv", MaskedTokenConv(c.context_length, o.conv_kernel_size, settings));  // default init
}

at::Tensor TransfixerLayerImpl::forward(const at::Tensor& x, RotaryTables& rotary) {
  at::Tensor h;
  switch (placement_) {
    case ConvPlacement::AfterAttention: {
      auto a = self_attn->forward(input_layernorm->forward(x), rotary);
      h = x + a + conv->forward(a);
      break;
    }
    case ConvPlacement::Parallel: {
      auto n = input_layernorm->forward(x);
      h = x + self_attn->forward(n, rotary) + conv->forward(n);
      break;
    }
    case ConvPlacement::BeforeAttention: {
      auto h1 = x + conv->forward(conv_layernorm->forward(x));
      h = h1 + self_attn->forward(input_layernorm->forward(h1), rotary);
      break;
    }
  }
  return h + mlp->forward(post_attention_layernorm->forward(h));
}

TransfixerBodyImpl::TransfixerBodyImpl(const ModelConfig& c, const TransfixerOptions& o) {
  embed_tokens = register_module("embed_tokens", torch::nn::Embedding(c.vocab_size, c.d_model));
  {
    torch::NoGradGuard no_grad;
    embed_tokens->weight.normal_(0.0, 0.02);  // HF Llama init
  }
  layers = register_module("layers", torch::nn::ModuleList());
  for (int64_t i = 0; i < c.n_layers; ++i) layers->push_back(TransfixerLayer(c, o));
  norm = register_module("norm", RMSNorm(c.d_model, normEps(c, kTransfixerNormEps)));
}

Transfixer::Transfixer(const ModelConfig& c) : LanguageModel(c), rotary_(c.d_model / c.n_heads, c.rope_theta) {
  model = register_module("model", TransfixerBody(c, TransfixerOptions::fromConfig(c)));
  lm_head =
      register_module("lm_head", torch::nn::Linear(torch::nn::LinearOptions(c.d_model, c.vocab_size).bias(false)));
  torch::NoGradGuard no_grad;
  lm_head->weight.normal_(0.0, 0.02);
}

at::Tensor Transfixer::finalNormStates(const at::Tensor& input_ids) {
  return model->norm->forward(hiddenStates(input_ids));
}

at::Tensor Transfixer::hiddenStates(const at::Tensor& input_ids) {
  return layerOutput(model->embed_tokens->forward(input_ids), representationLayers());
}

int64_t Transfixer::representationLayers() const { return static_cast<int64_t>(model->layers->size()); }
at::Tensor Transfixer::tokenEmbeddingMatrix() { return model->embed_tokens->weight; }

at::Tensor Transfixer::layerOutput(const at::Tensor& embeds, int64_t layer) {
  auto x = embeds;
  for (int64_t i = 0; i < layer; ++i) x = model->layers[i]->as<TransfixerLayer>()->forward(x, rotary_);
  return x;
}

at::Tensor Transfixer::forward(const at::Tensor& input_ids) {
  return lm_head->forward(model->norm->forward(hiddenStates(input_ids)));
}

std::map<std::string, at::Tensor> Transfixer::moduleTensors() {
  auto out = LanguageModel::moduleTensors();
  for (size_t i = 0; i < model->layers->size(); ++i) {
    out["model.layers." + std::to_string(i) + ".conv.weight"] =
        model->layers[i]->as<TransfixerLayer>()->conv->maskedWeight().detach();
  }
  return out;
}

void Transfixer::afterLoad() {
  for (const auto& layer : *model->layers) layer->as<TransfixerLayer>()->conv->zeroMaskedEntries();
}

}  // namespace mixerlab
