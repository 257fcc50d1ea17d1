// Flat masked mixer (see masked_mixer.h).
#include "core/models/masked_mixer.h"

#include <cmath>

#include <torch/torch.h>

#include "kernels/masked_token_mix.h"

namespace mixerlab {
namespace F = torch::nn::functional;

MaskedTokenConvImpl::MaskedTokenConvImpl(int64_t context_length, int64_t kernel_size)
    : context_length_(context_length), kernel_size_(kernel_size) {
  // PyTorch's Conv1d default init: U(+-1/sqrt(fan_in)) with fan_in = in_channels * kernel_size.
  const double bound = 1.0 / std::sqrt(static_cast<double>(context_length * kernel_size));
  weight = register_parameter("weight", torch::empty({context_length, context_length, kernel_size}).uniform_(-bound, bound));
  bias = register_parameter("bias", torch::empty({context_length}).uniform_(-bound, bound));
  zeroMaskedEntries();
}

at::Tensor MaskedTokenConvImpl::maskedWeight() const {
  auto mask = kernels::causalMask(context_length_, weight.options()).unsqueeze(-1);
  return weight * mask;
}

void MaskedTokenConvImpl::zeroMaskedEntries() {
  torch::NoGradGuard no_grad;
  weight.copy_(maskedWeight());
}

at::Tensor MaskedTokenConvImpl::forward(const at::Tensor& x) {
  if (kernel_size_ == 1) return kernels::maskedTokenMix(x, weight.select(2, 0), bias);
  // k > 1: each tap t mixes hidden feature f + t - left of earlier tokens ('same' padding on D,
  // left = floor((k-1)/2), right = the rest, as PyTorch's padding='same').
  const int64_t length = x.size(1), width = x.size(2);
  const int64_t left = (kernel_size_ - 1) / 2, right = kernel_size_ - 1 - left;
  auto padded = F::pad(x, F::PadFuncOptions({left, right}));
  at::Tensor y;
  for (int64_t t = 0; t < kernel_size_; ++t) {
    auto shifted = padded.narrow(2, t, width);
    auto part = kernels::maskedTokenMix(shifted, weight.select(2, t), at::Tensor());
    y = y.defined() ? y + part : part;
  }
  return y + bias.narrow(0, 0, length).unsqueeze(-1);
}

MixerBlockImpl::MixerBlockImpl(const ModelConfig& c) {
  const double eps = c.norm_eps > 0 ? c.norm_eps : 1e-5;
  seq_layernorm = register_module("seq_layernorm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({c.d_model}).eps(eps)));
  patch_layernorm =
      register_module("patch_layernorm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({c.d_model}).eps(eps)));
  conv = register_module("conv", MaskedTokenConv(c.context_length, c.kernel_size));
  patch_ff = register_module(
      "patch_ff", torch::nn::Sequential(torch::nn::Linear(c.d_model, c.ff_mult * c.d_model),
                                        torch::nn::GELU(), torch::nn::Linear(c.ff_mult * c.d_model, c.d_model)));
}

at::Tensor MixerBlockImpl::forward(const at::Tensor& x) {
  auto h = x + conv->forward(seq_layernorm->forward(x));
  return h + patch_ff->forward(patch_layernorm->forward(h));
}

MaskedMixer::MaskedMixer(const ModelConfig& c) : LanguageModel(c) {
  wte = register_module("wte", torch::nn::Embedding(c.vocab_size, c.d_model));  // N(0,1) init, as PyTorch
  mixerblocks = register_module("mixerblocks", torch::nn::ModuleList());
  for (int64_t i = 0; i < c.n_layers; ++i) mixerblocks->push_back(MixerBlock(c));
  if (!c.tie_weights) {
    lm_head = register_module("lm_head", torch::nn::Linear(torch::nn::LinearOptions(c.d_model, c.vocab_size).bias(false)));
  } else {
    // The research code ties by pointing wte at the head's matrix, so the shared matrix has Linear init.
    torch::NoGradGuard no_grad;
    const double bound = 1.0 / std::sqrt(static_cast<double>(c.d_model));
    wte->weight.uniform_(-bound, bound);
  }
}

at::Tensor MaskedMixer::hiddenStates(const at::Tensor& input_ids) {
  auto x = wte->forward(input_ids);
  for (const auto& block : *mixerblocks) x = block->as<MixerBlock>()->forward(x);
  return x;
}

at::Tensor MaskedMixer::forward(const at::Tensor& input_ids) {
  auto x = hiddenStates(input_ids);
  return lm_head ? lm_head->forward(x) : F::linear(x, wte->weight);
}

std::map<std::string, at::Tensor> MaskedMixer::exportTensors() {
  auto out = LanguageModel::exportTensors();
  for (size_t i = 0; i < mixerblocks->size(); ++i) {
    out["mixerblocks." + std::to_string(i) + ".conv.weight"] =
        mixerblocks[i]->as<MixerBlock>()->conv->maskedWeight().detach();
  }
  if (!lm_head) out["lm_head.weight"] = wte->weight.detach();
  return out;
}

void MaskedMixer::afterLoad() {
  for (const auto& block : *mixerblocks) block->as<MixerBlock>()->conv->zeroMaskedEntries();
}

}  // namespace mixerlab
