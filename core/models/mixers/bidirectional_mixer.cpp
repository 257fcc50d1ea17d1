// Bidirectional masked mixer (see bidirectional_mixer.h).
#include "core/models/mixers/bidirectional_mixer.h"

#include <cmath>

#include <torch/torch.h>

#include "core/models/bias_fused_linear.h"

namespace mixerlab {

const FieldSet<BidirectionalMixerOptions>& bidirectionalMixerOptionFields() {
  static const auto fields =
      FieldSet<BidirectionalMixerOptions>()
          .group("Token mixing")
          .choice("mask_mode", &BidirectionalMixerOptions::mask_mode, {"graph", "inplace_compat"}, "Mask mode",
                  "inplace_compat: overwrite both streams' stored conv weights with their masked form every forward, "
                  "as the "
                  "research code, so masked entries get gradients that count in clipping (docs/fidelity.md)");
  return fields;
}

DoubleMixerBlockImpl::DoubleMixerBlockImpl(const ModelConfig& c) {
  const double eps = c.norm_eps > 0 ? c.norm_eps : 1e-5;
  auto layerNorm = [&] { return torch::nn::LayerNorm(torch::nn::LayerNormOptions({c.d_model}).eps(eps)); };
  patch_layernorm = register_module("patch_layernorm", layerNorm());
  seq_layernormf = register_module("seq_layernormf", layerNorm());
  seq_layernormr = register_module("seq_layernormr", layerNorm());
  const int64_t inner = c.ff_mult * c.d_model;
  patch_ff = register_module("patch_ff", torch::nn::Sequential(BiasFusedLinear(c.d_model, inner), torch::nn::GELU(),
                                                               BiasFusedLinear(inner, c.d_model)));
  const bool inplace = bidirectionalMixerOptionFields().read(c.options, "", "options").mask_mode == "inplace_compat";
  TokenConvSettings forward;
  forward.inplace_mask = inplace;
  TokenConvSettings reverse;
  reverse.mask = kernels::TokenMask::kFutureSkipOne;
  reverse.inplace_mask = inplace;
  convf = register_module("convf", MaskedTokenConv(c.context_length, c.kernel_size, forward));
  convr = register_module("convr", MaskedTokenConv(c.context_length, c.kernel_size, reverse));
}

std::pair<at::Tensor, at::Tensor> DoubleMixerBlockImpl::forward(const at::Tensor& x, const at::Tensor& y) {
  auto xf = x + convf->forward(seq_layernormf->forward(x));
  auto yr = y + convr->forward(seq_layernormr->forward(y));
  xf = xf + patch_ff->forward(patch_layernorm->forward(xf));
  yr = yr + patch_ff->forward(patch_layernorm->forward(yr));
  return {xf, yr};
}

BidirectionalMixer::BidirectionalMixer(const ModelConfig& c) : LanguageModel(c) {
  wte = register_module("wte", torch::nn::Embedding(c.vocab_size, c.d_model));
  mixerblocks = register_module("mixerblocks", torch::nn::ModuleList());
  for (int64_t i = 0; i < c.n_layers; ++i) mixerblocks->push_back(DoubleMixerBlock(c));
  lm_head = registerMixerHead(*this, c, wte);
}

at::Tensor BidirectionalMixer::hiddenStates(const at::Tensor& input_ids) {
  return layerOutput(wte->forward(input_ids), representationLayers());
}

int64_t BidirectionalMixer::representationLayers() const { return static_cast<int64_t>(mixerblocks->size()); }
at::Tensor BidirectionalMixer::tokenEmbeddingMatrix() { return wte->weight; }

// Block k's output is the sum of the two streams after k blocks; layer 0 is the embedding itself
// (not the streams' sum, which would double it).
at::Tensor BidirectionalMixer::layerOutput(const at::Tensor& embeds, int64_t layer) {
  if (layer == 0) return embeds;
  auto x = embeds;
  auto y = x;  // both streams start from the same embedding
  for (int64_t i = 0; i < layer; ++i) std::tie(x, y) = mixerblocks[i]->as<DoubleMixerBlock>()->forward(x, y);
  return x + y;
}

at::Tensor BidirectionalMixer::forward(const at::Tensor& input_ids) {
  auto h = hiddenStates(input_ids);
  return lm_head ? lm_head->forward(h) : torch::nn::functional::linear(h, wte->weight);
}

std::map<std::string, at::Tensor> BidirectionalMixer::moduleTensors() {
  auto out = LanguageModel::moduleTensors();
  for (size_t i = 0; i < mixerblocks->size(); ++i) {
    auto* block = mixerblocks[i]->as<DoubleMixerBlock>();
    const std::string prefix = "mixerblocks." + std::to_string(i);
    out[prefix + ".convf.weight"] = block->convf->maskedWeight().detach();
    out[prefix + ".convr.weight"] = block->convr->maskedWeight().detach();
  }
  if (!lm_head) out["lm_head.weight"] = wte->weight.detach();
  return out;
}

void BidirectionalMixer::afterLoad() {
  for (const auto& item : *mixerblocks) {
    auto* block = item->as<DoubleMixerBlock>();
    block->convf->zeroMaskedEntries();
    block->convr->zeroMaskedEntries();
  }
}

}  // namespace mixerlab
