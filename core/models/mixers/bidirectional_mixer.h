// The bidirectional masked mixer (docs/architectures.md) (research mixer_lm/bidirectional_mixer.py,
// DoubleMixerBlock): two streams start from the same embedding; per block the forward stream x
// mixes with a tril conv (j <= i), the reverse stream y with a triu(diagonal=2) conv (j >= i+2), each
// after its own LayerNorm; then both go through the SAME patch LayerNorm and feed-forward. Streams
// are combined only after the last block: logits = lm_head(x + y), standard shifted CE, so output i
// predicts token i+1 from tokens <= i and >= i+2 and never sees token i+1 itself.
// Tensor names are the research code's: mixerblocks.N.{seq_layernormf, convf, seq_layernormr, convr,
// patch_layernorm, patch_ff.0, patch_ff.2}.*, wte.weight, lm_head.weight.
#pragma once
#include <string>
#include <utility>

#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/normalization.h>

#include "core/models/mixers/masked_mixer.h"
#include "core/util/field_set.h"

namespace mixerlab {

// The family's options (run.model.options of arch "bidirectional_mixer").
struct BidirectionalMixerOptions {
  std::string mask_mode = "graph";  // graph | inplace_compat (as the masked mixer's option)
};
const FieldSet<BidirectionalMixerOptions>& bidirectionalMixerOptionFields();

class DoubleMixerBlockImpl : public torch::nn::Module {
 public:
  explicit DoubleMixerBlockImpl(const ModelConfig& config);
  // (x, y) -> (x', y'): one block on both streams; the streams never exchange information here.
  std::pair<at::Tensor, at::Tensor> forward(const at::Tensor& x, const at::Tensor& y);
  torch::nn::LayerNorm seq_layernormf{nullptr}, seq_layernormr{nullptr}, patch_layernorm{nullptr};
  MaskedTokenConv convf{nullptr}, convr{nullptr};
  torch::nn::Sequential patch_ff{nullptr};
};
TORCH_MODULE(DoubleMixerBlock);

class BidirectionalMixer : public LanguageModel {
 public:
  explicit BidirectionalMixer(const ModelConfig& config);
  at::Tensor forward(const at::Tensor& input_ids) override;
  // x + y after the last block (what lm_head reads): [B, L, D].
  at::Tensor hiddenStates(const at::Tensor& input_ids) override;
  int64_t representationLayers() const override;
  at::Tensor tokenEmbeddingMatrix() override;
  at::Tensor layerOutput(const at::Tensor& embeds, int64_t layer) override;
  std::map<std::string, at::Tensor> moduleTensors() override;
  void afterLoad() override;

  torch::nn::Embedding wte{nullptr};
  torch::nn::ModuleList mixerblocks{nullptr};
  torch::nn::Linear lm_head{nullptr};  // null when tie_weights
};

}  // namespace mixerlab
