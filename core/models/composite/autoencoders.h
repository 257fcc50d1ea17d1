// Autoencoders (docs/architectures.md): an encoder stack reads the tokens, the last position's hidden
// state is repeated over the whole context (optionally through a bottleneck D -> D/c -> D), a
// decoder stack with its own parameters reconstructs every token, and the loss is the UNSHIFTED
// cross-entropy (output t reconstructs token t). The repeated vector is the text's embedding
// (used later for retrieval). Two families: mixer blocks or Llama decoder layers.
#pragma once
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/modules/linear.h>

#include "core/models/language_model.h"
#include "core/models/transformers/llama_transformer.h"
#include "core/util/field_set.h"

namespace mixerlab {

// Shared by both: bottleneck, repetition and the unshifted loss.
class AutoencoderBase : public LanguageModel {
 public:
  explicit AutoencoderBase(const ModelConfig& config);
  at::Tensor forward(const at::Tensor& input_ids) override;
  at::Tensor hiddenStates(const at::Tensor& input_ids) override;     // decoder output [B, L, D]
  at::Tensor embeddingStates(const at::Tensor& input_ids) override;  // encoder output [B, L, D]
  // The text embedding: the encoder's hidden state at the last position, [B, D].
  at::Tensor embed(const at::Tensor& input_ids);
  at::Tensor loss(const at::Tensor& logits, const at::Tensor& labels) const override;
  int64_t targetCount(const at::Tensor& labels) const override;
  int64_t predictionOffset() const override { return 0; }
  // The bottleneck's two Linears are `down` and `up` in the research.
  std::string fileTensorName(const std::string& name) const override;

  torch::nn::Embedding wte{nullptr};
  torch::nn::Sequential bottleneck{nullptr};  // null without a bottleneck
  torch::nn::Linear lm_head{nullptr};

 protected:
  virtual at::Tensor encode(const at::Tensor& x) = 0;  // [B, L, D] -> [B, L, D]
  virtual at::Tensor decode(const at::Tensor& x) = 0;
};

// Research names: multi-head blocks hold their head under `conv.` and, with ff_dropout, the
// feed-forward is Sequential(Linear, Dropout, GELU, Linear), so its second Linear is patch_ff.3.
class MixerAutoencoder : public AutoencoderBase {
 public:
  explicit MixerAutoencoder(const ModelConfig& config);
  std::string fileTensorName(const std::string& name) const override;
  torch::nn::ModuleList encoderblocks{nullptr}, decoderblocks{nullptr};

 protected:
  at::Tensor encode(const at::Tensor& x) override;
  at::Tensor decode(const at::Tensor& x) override;

 private:
  bool ff_dropout_;
};

// options.dropout applies dropout to the token embeddings and to the repeated embedding that
// feeds the decoder (training only).
// Research names: each stack was a LlamaForCausalLM used for its layers only, so layer N of the
// encoder is encoder.model.model.layers.N.* (the wrapped models' unused embedding, norm and head
// are skipped on import). The embedding and head keep PyTorch's default init, as in the research.
class TransformerAutoencoder : public AutoencoderBase {
 public:
  explicit TransformerAutoencoder(const ModelConfig& config);
  std::string fileTensorName(const std::string& name) const override;
  bool ignoresFileTensor(const std::string& name) const override;
  torch::nn::ModuleList encoder{nullptr}, decoder{nullptr};  // Llama decoder layers (causal), no final norm

 protected:
  at::Tensor encode(const at::Tensor& x) override;
  at::Tensor decode(const at::Tensor& x) override;

 private:
  RotaryTables rotary_;
  double dropout_;
};

// The autoencoders' own options. The mixer autoencoder reads `bottleneck` and passes every other
// key to its masked mixer blocks; the transformer autoencoder reads `bottleneck` and `dropout`.
struct AutoencoderOptions {
  int64_t bottleneck = 0;  // c > 1: Linear(D -> D/c) -> Linear(D/c -> D) on the repeated embedding
  double dropout = 0.0;    // transformer: on the token embeddings and the repeated embedding
};
const FieldSet<AutoencoderOptions>& mixerAutoencoderOptionFields();        // bottleneck
const FieldSet<AutoencoderOptions>& transformerAutoencoderOptionFields();  // bottleneck, dropout

// Bottleneck divisor c from options ("bottleneck", 0 = none).
int64_t autoencoderBottleneck(const ModelConfig& config);
// The config the mixer autoencoder's blocks are built from (its own keys removed from options).
ModelConfig autoencoderBlockConfig(const ModelConfig& config);

}  // namespace mixerlab
