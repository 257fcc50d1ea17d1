// The flat masked mixer (docs/architectures.md): attention replaced by a causally masked token-mixing
// Conv1d(T, T, k) over the token axis, two LayerNorms, a 4x GELU feed-forward, no positional
// encoding, no final norm, untied head without bias. Submodule names follow the research code so
// named_parameters() are the safetensors names (wte, mixerblocks.N.*, lm_head).
// Variants (ModelConfig::options, see mixer_options.h): expanded / multi-head token mixing,
// softmax weights, in-place masking compat, and the linear / near-linear ablations.
#pragma once
#include <memory>
#include <optional>
#include <vector>

#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/normalization.h>

#include "core/models/language_model.h"
#include "core/models/mixers/mixer_options.h"
#include "core/models/mixers/mixer_stack_path.h"
#include "kernels/masked_token_mix.h"

namespace mixerlab {

// Token-mixing convolution with a per-tap lower-triangular mask. Weight [T, T, k], bias [T].
// By default the mask is applied inside the graph (masked entries get zero gradient) and the stored
// upper triangle is zeroed at construction and after loading, so saved weights are lower-triangular.
// `settings` select another mask kind (the bidirectional reverse stream), softmax weights or the
// research code's in-place masking (see TokenConvSettings).
class MaskedTokenConvImpl : public torch::nn::Module {
 public:
  MaskedTokenConvImpl(int64_t context_length, int64_t kernel_size, TokenConvSettings settings = {});
  at::Tensor forward(const at::Tensor& x);  // [B, L, D] -> [B, L, D]
  // The same mix of a token-major x: [L, B, D] -> [L, B, D] (kernel size 1 only).
  at::Tensor forwardTokenMajor(const at::Tensor& x);
  void zeroMaskedEntries();
  at::Tensor maskedWeight() const;  // [T, T, k] with the masked entries of every tap zeroed
  // softmax_compat: W <- tril(softmax over output tokens (dim 0) of tril(W)), written into the parameter.
  void applySoftmaxCompat();
  // The [T, T, k] weight forward() applies (masked, softmax rows, or one softmax_compat rewrite),
  // computed without touching the parameter; incremental decoders mix one row at a time with it.
  at::Tensor appliedWeight() const;
  const TokenConvSettings& settings() const { return settings_; }
  int64_t kernelSize() const { return kernel_size_; }
  at::Tensor weight, bias;

 private:
  // The weight forward() multiplies by and the mask it still needs (softmax_compat and the in-place
  // mask rewrite the parameter first, as the research code does).
  std::pair<at::Tensor, kernels::TokenMask> forwardWeight();
  int64_t context_length_, kernel_size_;
  TokenConvSettings settings_;
};
TORCH_MODULE(MaskedTokenConv);

class ExpandedTokenMixImpl;
class MixerHeadImpl;

// Pre-norm block x + mix(LN(x)); x + FF(LN(x)). Exactly one token-mixing module is set (per
// options.mixing); norms / FF are null when the options remove them.
class MixerBlockImpl : public torch::nn::Module {
 public:
  explicit MixerBlockImpl(const ModelConfig& config);
  // token_major: x is [L, B, D] (MaskedMixer's token-major stack; flat mixing with kernel size 1).
  at::Tensor forward(const at::Tensor& x, bool token_major = false);
  at::Tensor mix(const at::Tensor& normed, bool token_major);  // the token-mixing sublayer alone
  // Whether the stack may fuse this block's residual adds into the LayerNorms after them: pre-norm
  // residual block with both norms, a feed-forward and flat mixing.
  bool fusableNorms() const;
  // Whether the block can run token-major: flat mixing with kernel size 1.
  bool tokenMajorCapable() const;
  std::vector<MaskedTokenConvImpl*> squareConvs();  // the flat conv or every head's conv
  at::Tensor feedForward(const at::Tensor& x);      // the position-wise sublayer (patch_ff must be set)
  // The feed-forward's two products (patch_ff.0 and patch_ff.2) and whether an exact GELU sits between
  // them (else the identity), for the decoders' one-row steps; nullopt without a feed-forward.
  struct FeedForwardProducts {
    torch::nn::LinearImpl* in;
    torch::nn::LinearImpl* out;
    bool gelu;
  };
  std::optional<FeedForwardProducts> feedForwardProducts();
  bool residual() const { return residual_; }
  torch::nn::LayerNorm seq_layernorm{nullptr}, patch_layernorm{nullptr};
  MaskedTokenConv conv{nullptr};                   // mixing "flat": conv.weight [T,T,k]
  std::shared_ptr<ExpandedTokenMixImpl> expanded;  // mixing "expanded": conv.0.*, conv.2.*
  std::shared_ptr<MixerHeadImpl> mixerhead;        // mixing "multi_head": mixerhead.*
  torch::nn::Sequential patch_ff{nullptr};

 private:
  bool residual_ = true;
  double ff_dropout_ = 0.0;
  bool ff_gelu_ = true;
};
TORCH_MODULE(MixerBlock);

// Registers the mixers' `lm_head` (Linear D -> V, no bias) on `owner`, or, with tie_weights, returns
// a null head and gives `wte` the Linear init (the research ties by pointing wte at the head's matrix).
torch::nn::Linear registerMixerHead(torch::nn::Module& owner, const ModelConfig& config, torch::nn::Embedding& wte);

class MaskedMixer : public LanguageModel {
 public:
  explicit MaskedMixer(const ModelConfig& config);
  at::Tensor forward(const at::Tensor& input_ids) override;
  at::Tensor hiddenStates(const at::Tensor& input_ids) override;
  int64_t representationLayers() const override;
  at::Tensor tokenEmbeddingMatrix() override;
  at::Tensor layerOutput(const at::Tensor& embeds, int64_t layer) override;
  std::map<std::string, at::Tensor> moduleTensors() override;
  void afterLoad() override;
  // The block-stack path forward() takes for tensors like `reference` (mixer_stack_path.h): the
  // preferred one, or the nearest simpler one these blocks allow (a layer hook forces kModules).
  MixerStackPath stackPath(const at::Tensor& reference) const;

  torch::nn::Embedding wte{nullptr};
  torch::nn::ModuleList mixerblocks{nullptr};
  torch::nn::Linear lm_head{nullptr};  // null when tie_weights (the head reuses wte.weight)

 private:
  // `layers` blocks over a token-major x ([T, B, D]); fused: residual adds fused into the norms.
  at::Tensor tokenMajorBlocks(at::Tensor x, int64_t layers, bool fused);
  bool relu_head_ = false;  // options.head_activation "relu" (LinearMixer)
};

}  // namespace mixerlab
