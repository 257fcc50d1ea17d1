// Flat masked mixer and its option variants (see masked_mixer.h, mixer_options.h).
#include "core/models/mixers/masked_mixer.h"

#include <cmath>

#include <torch/torch.h>

#include "core/models/bias_fused_linear.h"
#include "core/models/mixers/mixer_expanded.h"
#include "core/models/mixers/mixer_head.h"
#include "kernels/masked_token_mix.h"
#include "kernels/residual_layer_norm.h"

namespace mixerlab {
namespace F = torch::nn::functional;

MaskedTokenConvImpl::MaskedTokenConvImpl(int64_t context_length, int64_t kernel_size, TokenConvSettings settings)
    : context_length_(context_length), kernel_size_(kernel_size), settings_(settings) {
  // PyTorch's Conv1d default init: U(+-1/sqrt(fan_in)) with fan_in = in_channels * kernel_size.
  const double bound = 1.0 / std::sqrt(static_cast<double>(context_length * kernel_size));
  weight =
      register_parameter("weight", torch::empty({context_length, context_length, kernel_size}).uniform_(-bound, bound));
  bias = register_parameter("bias", torch::empty({context_length}).uniform_(-bound, bound));
  zeroMaskedEntries();
}

at::Tensor MaskedTokenConvImpl::maskedWeight() const {
  auto mask = kernels::tokenMask(settings_.mask, context_length_, context_length_, weight.options()).unsqueeze(-1);
  return weight * mask;
}

void MaskedTokenConvImpl::zeroMaskedEntries() {
  torch::NoGradGuard no_grad;
  weight.copy_(maskedWeight());
}

void MaskedTokenConvImpl::applySoftmaxCompat() {
  // Research coding (1): tril, softmax over the output-token axis (each column j normalised over
  // all T rows, the masked zeros contributing exp(0) = 1), tril again, stored in the parameter.
  // It is applied to the already-transformed weights at every forward (train and eval alike).
  torch::NoGradGuard no_grad;
  weight.select(2, 0).copy_(torch::softmax(weight.select(2, 0).tril(), 0).tril());
}

at::Tensor MaskedTokenConvImpl::appliedWeight() const {
  torch::NoGradGuard no_grad;
  if (settings_.weights == MixWeights::kSoftmaxCompat) {
    return torch::softmax(weight.select(2, 0).tril(), 0).tril().unsqueeze(-1);
  }
  if (settings_.weights == MixWeights::kSoftmax) {
    auto keep = kernels::tokenMask(kernels::TokenMask::kCausal, context_length_, context_length_, weight.options());
    return torch::softmax(weight.select(2, 0).masked_fill(keep.eq(0), -INFINITY), 1).unsqueeze(-1);
  }
  return maskedWeight();
}

std::pair<at::Tensor, kernels::TokenMask> MaskedTokenConvImpl::forwardWeight() {
  if (settings_.weights == MixWeights::kSoftmaxCompat) {
    applySoftmaxCompat();
    // plain product on the stored weights: every entry gets a gradient, as in the research run
    return {weight, kernels::TokenMask::kNone};
  }
  if (settings_.weights == MixWeights::kSoftmax) {
    // Row i: softmax over j <= i only; the -inf entries get exactly zero weight and zero gradient.
    auto keep = kernels::tokenMask(kernels::TokenMask::kCausal, context_length_, context_length_, weight.options());
    return {torch::softmax(weight.select(2, 0).masked_fill(keep.eq(0), -INFINITY), 1).unsqueeze(-1), settings_.mask};
  }
  if (settings_.inplace_mask) {
    // Research mechanics (docs/architectures.md): overwrite the storage with the masked weight, then run
    // the plain product, so masked entries receive gradients. Only rewrites when something is
    // unmasked, so repeated forwards between optimizer steps leave the version counter alone.
    const auto unmasked = weight - maskedWeight();
    if (unmasked.abs().max().item<double>() > 0) zeroMaskedEntries();
    return {weight, kernels::TokenMask::kNone};
  }
  return {weight, settings_.mask};
}

at::Tensor MaskedTokenConvImpl::forwardTokenMajor(const at::Tensor& x) {
  TORCH_CHECK(kernel_size_ == 1, "token-major mixing needs kernel size 1, this conv has ", kernel_size_);
  const auto [w, mask] = forwardWeight();
  return kernels::tokenMajorMix(x, w.select(2, 0), bias, mask);
}

at::Tensor MaskedTokenConvImpl::forward(const at::Tensor& x) {
  const auto [w, mask] = forwardWeight();
  if (kernel_size_ == 1) return kernels::maskedTokenMix(x, w.select(2, 0), bias, mask);
  // k > 1: each tap t mixes hidden feature f + t - left of earlier tokens ('same' padding on D,
  // left = floor((k-1)/2), right = the rest, as PyTorch's padding='same').
  const int64_t length = x.size(1), width = x.size(2);
  const int64_t left = (kernel_size_ - 1) / 2, right = kernel_size_ - 1 - left;
  auto padded = F::pad(x, F::PadFuncOptions({left, right}));
  at::Tensor y;
  for (int64_t t = 0; t < kernel_size_; ++t) {
    auto shifted = padded.narrow(2, t, width);
    auto part = kernels::maskedTokenMix(shifted, w.select(2, t), at::Tensor(), mask);
    y = y.defined() ? y + part : part;
  }
  return y + bias.narrow(0, 0, length).unsqueeze(-1);
}

MixerBlockImpl::MixerBlockImpl(const ModelConfig& c) {
  const MixerOptions o = mixerOptions(c);
  residual_ = o.residual;
  ff_dropout_ = o.ff_dropout;
  ff_gelu_ = o.feed_forward == "gelu";
  const double eps = c.norm_eps > 0 ? c.norm_eps : 1e-5;
  auto layerNorm = [&] { return torch::nn::LayerNorm(torch::nn::LayerNormOptions({c.d_model}).eps(eps)); };
  if (o.layer_norms) seq_layernorm = register_module("seq_layernorm", layerNorm());
  if (o.layer_norms && o.feed_forward != "none") patch_layernorm = register_module("patch_layernorm", layerNorm());
  if (o.mixing == "expanded") {
    expanded = register_module("conv", std::make_shared<ExpandedTokenMixImpl>(
                                           c.context_length, o.expansion, o.expanded_bias, o.tokenConv().inplace_mask));
  } else if (o.mixing == "multi_head") {
    mixerhead = register_module("mixerhead",
                                std::make_shared<MixerHeadImpl>(c, o.mixing_heads, o.tokenConv(), o.multi_head_compat));
  } else {
    conv = register_module("conv", MaskedTokenConv(c.context_length, c.kernel_size, o.tokenConv()));
  }
  const int64_t inner = c.ff_mult * c.d_model;
  if (o.feed_forward == "gelu") {
    patch_ff = register_module("patch_ff", torch::nn::Sequential(BiasFusedLinear(c.d_model, inner), torch::nn::GELU(),
                                                                 BiasFusedLinear(inner, c.d_model)));
  } else if (o.feed_forward == "linear") {
    // Identity in the GELU's slot keeps the tensor names patch_ff.0.* / patch_ff.2.*.
    patch_ff =
        register_module("patch_ff", torch::nn::Sequential(BiasFusedLinear(c.d_model, inner), torch::nn::Identity(),
                                                          BiasFusedLinear(inner, c.d_model)));
  }
}

std::vector<MaskedTokenConvImpl*> MixerBlockImpl::squareConvs() {
  std::vector<MaskedTokenConvImpl*> out;
  if (conv) out.push_back(conv.get());
  if (mixerhead) {
    for (const auto& m : *mixerhead->convs) out.push_back(m->as<MaskedTokenConv>());
  }
  return out;
}

at::Tensor MixerBlockImpl::mix(const at::Tensor& normed, bool token_major) {
  if (token_major) return conv->forwardTokenMajor(normed);
  return conv ? conv->forward(normed) : expanded ? expanded->forward(normed) : mixerhead->forward(normed);
}

bool MixerBlockImpl::tokenMajorCapable() const { return conv && conv->kernelSize() == 1; }

bool MixerBlockImpl::fusableNorms() const {
  return tokenMajorCapable() && residual_ && seq_layernorm && patch_layernorm && patch_ff;
}

at::Tensor MixerBlockImpl::forward(const at::Tensor& x, bool token_major) {
  auto normed = seq_layernorm ? seq_layernorm->forward(x) : x;
  auto mixed = mix(normed, token_major);
  auto h = residual_ ? x + mixed : mixed;
  if (!patch_ff) return h;
  auto ff = feedForward(patch_layernorm ? patch_layernorm->forward(h) : h);
  return residual_ ? h + ff : ff;
}

std::optional<MixerBlockImpl::FeedForwardProducts> MixerBlockImpl::feedForwardProducts() {
  if (!patch_ff) return std::nullopt;
  return FeedForwardProducts{patch_ff[0]->as<torch::nn::Linear>(), patch_ff[2]->as<torch::nn::Linear>(), ff_gelu_};
}

at::Tensor MixerBlockImpl::feedForward(const at::Tensor& x) {
  if (ff_dropout_ <= 0.0) return patch_ff->forward(x);
  // Linear -> Dropout -> GELU -> Linear, as the paper-era autoencoder blocks; applied here rather
  // than as a module so the tensor names stay patch_ff.0 / patch_ff.2.
  auto h = patch_ff[0]->as<BiasFusedLinearImpl>()->forward(x);
  h = torch::dropout(h, ff_dropout_, is_training());
  if (ff_gelu_) h = torch::gelu(h);
  return patch_ff[2]->as<BiasFusedLinearImpl>()->forward(h);
}

torch::nn::Linear registerMixerHead(torch::nn::Module& owner, const ModelConfig& c, torch::nn::Embedding& wte) {
  if (!c.tie_weights) {
    return owner.register_module("lm_head",
                                 torch::nn::Linear(torch::nn::LinearOptions(c.d_model, c.vocab_size).bias(false)));
  }
  torch::NoGradGuard no_grad;
  const double bound = 1.0 / std::sqrt(static_cast<double>(c.d_model));
  wte->weight.uniform_(-bound, bound);
  return torch::nn::Linear(nullptr);
}

MaskedMixer::MaskedMixer(const ModelConfig& c) : LanguageModel(c) {
  relu_head_ = mixerOptions(c).head_activation == "relu";
  wte = register_module("wte", torch::nn::Embedding(c.vocab_size, c.d_model));  // N(0,1) init, as PyTorch
  mixerblocks = register_module("mixerblocks", torch::nn::ModuleList());
  for (int64_t i = 0; i < c.n_layers; ++i) mixerblocks->push_back(MixerBlock(c));
  lm_head = registerMixerHead(*this, c, wte);
  if (const double std = mixerOptions(c).embedding_init_std; std > 0) {
    torch::NoGradGuard no_grad;
    wte->weight.normal_(0.0, std);
  }
  supports_layer_hook_ = true;
}

at::Tensor MaskedMixer::hiddenStates(const at::Tensor& input_ids) {
  const MixerStackPath path = stackPath(wte->weight);
  if (path == MixerStackPath::kModules) return layerOutput(wte->forward(input_ids), representationLayers());
  // Token-major from the lookup on: only the [T, B] ids are transposed, not the embeddings.
  const auto x = tokenMajorBlocks(wte->forward(input_ids.t()), representationLayers(), path == MixerStackPath::kFused);
  return x.transpose(0, 1).contiguous();
}

int64_t MaskedMixer::representationLayers() const { return static_cast<int64_t>(mixerblocks->size()); }
at::Tensor MaskedMixer::tokenEmbeddingMatrix() { return wte->weight; }

MixerStackPath MaskedMixer::stackPath(const at::Tensor& reference) const {
  MixerStackPath path = preferredMixerStackPath(reference);
  if (path == MixerStackPath::kModules || hasLayerHook()) return MixerStackPath::kModules;
  for (const auto& item : *mixerblocks) {
    const auto* block = item->as<MixerBlock>();
    if (!block->tokenMajorCapable()) return MixerStackPath::kModules;
    if (!block->fusableNorms()) path = MixerStackPath::kTokenMajor;
  }
  return path;
}

at::Tensor MaskedMixer::tokenMajorBlocks(at::Tensor x, int64_t layers, bool fused) {
  if (!fused || layers == 0) {
    for (int64_t i = 0; i < layers; ++i) x = mixerblocks[i]->as<MixerBlock>()->forward(x, true);
    return x;
  }
  // Each block is x + mix(LN1(x)), then h + FF(LN2(h)); every add but the last is fused with the
  // norm that reads its result (the next block's LN1 after the feed-forward).
  auto* block = mixerblocks[0]->as<MixerBlock>();
  at::Tensor normed = block->seq_layernorm->forward(x);
  for (int64_t i = 0; i < layers; ++i) {
    block = mixerblocks[i]->as<MixerBlock>();
    const auto& norm2 = block->patch_layernorm;
    auto [ff_in, h] =
        kernels::residualLayerNorm(x, block->mix(normed, true), norm2->weight, norm2->bias, norm2->options.eps());
    const at::Tensor ff = block->feedForward(ff_in);
    if (i + 1 == layers) return h + ff;
    const auto& next_norm = mixerblocks[i + 1]->as<MixerBlock>()->seq_layernorm;
    std::tie(normed, x) =
        kernels::residualLayerNorm(h, ff, next_norm->weight, next_norm->bias, next_norm->options.eps());
  }
  return x;
}

at::Tensor MaskedMixer::layerOutput(const at::Tensor& embeds, int64_t layer) {
  const MixerStackPath path = stackPath(embeds);
  if (path != MixerStackPath::kModules) {
    const auto x = tokenMajorBlocks(embeds.transpose(0, 1).contiguous(), layer, path == MixerStackPath::kFused);
    return x.transpose(0, 1).contiguous();
  }
  auto x = embeds;
  for (int64_t i = 0; i < layer; ++i) x = applyLayerHook(i, mixerblocks[i]->as<MixerBlock>()->forward(x));
  return x;
}

at::Tensor MaskedMixer::forward(const at::Tensor& input_ids) {
  auto x = hiddenStates(input_ids);
  if (relu_head_) x = torch::relu(x);
  return lm_head ? lm_head->forward(x) : F::linear(x, wte->weight);
}

std::map<std::string, at::Tensor> MaskedMixer::moduleTensors() {
  auto out = LanguageModel::moduleTensors();
  for (size_t i = 0; i < mixerblocks->size(); ++i) {
    auto* block = mixerblocks[i]->as<MixerBlock>();
    const std::string prefix = "mixerblocks." + std::to_string(i);
    if (block->conv) out[prefix + ".conv.weight"] = block->conv->maskedWeight().detach();
    if (block->expanded) {
      out[prefix + ".conv.0.weight"] = block->expanded->conv0->maskedWeight().detach();
      out[prefix + ".conv.2.weight"] = block->expanded->conv2->maskedWeight().detach();
    }
    if (block->mixerhead) {
      for (size_t h = 0; h < block->mixerhead->convs->size(); ++h) {
        out[prefix + ".mixerhead.convs." + std::to_string(h) + ".weight"] =
            block->mixerhead->convs[h]->as<MaskedTokenConv>()->maskedWeight().detach();
      }
    }
  }
  if (!lm_head) out["lm_head.weight"] = wte->weight.detach();
  return out;
}

void MaskedMixer::afterLoad() {
  for (const auto& item : *mixerblocks) {
    auto* block = item->as<MixerBlock>();
    for (auto* conv : block->squareConvs()) conv->zeroMaskedEntries();
    if (block->expanded) {
      block->expanded->conv0->zeroMaskedEntries();
      block->expanded->conv2->zeroMaskedEntries();
    }
  }
}

}  // namespace mixerlab
