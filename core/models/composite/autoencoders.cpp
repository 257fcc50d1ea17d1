// Mixer and transformer autoencoders (see autoencoders.h).
#include "core/models/composite/autoencoders.h"

#include <torch/torch.h>

#include "core/models/mixers/masked_mixer.h"
#include "core/models/mixers/mixer_options.h"
#include "core/models/research_names.h"

namespace mixerlab {
namespace F = torch::nn::functional;

namespace {
FieldSet<AutoencoderOptions> bottleneckField() {
  return FieldSet<AutoencoderOptions>()
      .group("Autoencoder")
      .integer(
          "bottleneck", &AutoencoderOptions::bottleneck, 0, 1 << 20, "Bottleneck divisor",
          "c > 1 inserts Linear(D -> D/c) -> Linear(D/c -> D) (bottleneck.0, bottleneck.1) on the repeated embedding; "
          "d_model must be divisible by c");
}
}  // namespace

const FieldSet<AutoencoderOptions>& mixerAutoencoderOptionFields() {
  static const auto fields = bottleneckField();
  return fields;
}

const FieldSet<AutoencoderOptions>& transformerAutoencoderOptionFields() {
  static const auto fields = bottleneckField().number(
      "dropout", &AutoencoderOptions::dropout, 0.0, 0.9, "Dropout",
      "dropout on the token embeddings and on the repeated embedding fed to the decoder (training only)");
  return fields;
}

int64_t autoencoderBottleneck(const ModelConfig& c) {
  // readStored: the mixer autoencoder's options also hold its blocks' keys.
  return mixerAutoencoderOptionFields().readStored(c.options).bottleneck;
}

AutoencoderBase::AutoencoderBase(const ModelConfig& c) : LanguageModel(c) {
  wte = register_module("wte", torch::nn::Embedding(c.vocab_size, c.d_model));
  if (const int64_t divisor = autoencoderBottleneck(c); divisor > 1) {
    bottleneck =
        register_module("bottleneck", torch::nn::Sequential(torch::nn::Linear(c.d_model, c.d_model / divisor),
                                                            torch::nn::Linear(c.d_model / divisor, c.d_model)));
  }
  lm_head =
      register_module("lm_head", torch::nn::Linear(torch::nn::LinearOptions(c.d_model, c.vocab_size).bias(false)));
}

at::Tensor AutoencoderBase::embed(const at::Tensor& input_ids) {
  auto encoded = embeddingStates(input_ids);
  return encoded.select(1, encoded.size(1) - 1);
}

at::Tensor AutoencoderBase::embeddingStates(const at::Tensor& input_ids) { return encode(wte->forward(input_ids)); }

at::Tensor AutoencoderBase::hiddenStates(const at::Tensor& input_ids) {
  auto e = embed(input_ids);
  if (bottleneck) e = bottleneck->forward(e);
  return decode(e.unsqueeze(1).expand({-1, input_ids.size(1), -1}).contiguous());
}

at::Tensor AutoencoderBase::forward(const at::Tensor& input_ids) { return lm_head->forward(hiddenStates(input_ids)); }

at::Tensor AutoencoderBase::loss(const at::Tensor& logits, const at::Tensor& labels) const {
  return F::cross_entropy(logits.reshape({-1, logits.size(2)}), labels.reshape({-1}),
                          F::CrossEntropyFuncOptions().ignore_index(-100));
}

int64_t AutoencoderBase::targetCount(const at::Tensor& labels) const { return labels.ne(-100).sum().item<int64_t>(); }

ModelConfig autoencoderBlockConfig(const ModelConfig& c) {
  ModelConfig blocks = c;
  if (blocks.options.is_object()) blocks.options.erase("bottleneck");  // the rest are mixer block options
  return blocks;
}

std::string AutoencoderBase::fileTensorName(const std::string& name) const {
  return replacePrefix(replacePrefix(name, "bottleneck.0.", "down."), "bottleneck.1.", "up.");
}

MixerAutoencoder::MixerAutoencoder(const ModelConfig& c)
    : AutoencoderBase(c), ff_dropout_(mixerOptions(autoencoderBlockConfig(c)).ff_dropout > 0) {
  const ModelConfig blocks = autoencoderBlockConfig(c);
  encoderblocks = register_module("encoderblocks", torch::nn::ModuleList());
  decoderblocks = register_module("decoderblocks", torch::nn::ModuleList());
  for (int64_t i = 0; i < c.n_layers; ++i) {
    encoderblocks->push_back(MixerBlock(blocks));
    decoderblocks->push_back(MixerBlock(blocks));
  }
}

std::string MixerAutoencoder::fileTensorName(const std::string& module_name) const {
  std::string name = AutoencoderBase::fileTensorName(module_name);
  if (!startsWith(name, "encoderblocks.") && !startsWith(name, "decoderblocks.")) return name;
  auto replace = [&name](const std::string& from, const std::string& to) {
    if (const size_t at = name.find(from); at != std::string::npos) name.replace(at, from.size(), to);
  };
  replace(".mixerhead.", ".conv.");  // the research's autoencoder blocks hold their MixerHead as `conv`
  if (ff_dropout_) replace(".patch_ff.2.", ".patch_ff.3.");  // Linear, Dropout, GELU, Linear
  return name;
}

at::Tensor MixerAutoencoder::encode(const at::Tensor& x) {
  at::Tensor h = x;
  for (const auto& block : *encoderblocks) h = block->as<MixerBlock>()->forward(h);
  return h;
}

at::Tensor MixerAutoencoder::decode(const at::Tensor& x) {
  at::Tensor h = x;
  for (const auto& block : *decoderblocks) h = block->as<MixerBlock>()->forward(h);
  return h;
}

TransformerAutoencoder::TransformerAutoencoder(const ModelConfig& c)
    : AutoencoderBase(c),
      rotary_(c.d_model / c.n_heads, c.rope_theta),
      dropout_(transformerAutoencoderOptionFields().read(c.options, "", "options").dropout) {
  // The embedding and head keep PyTorch's default init (N(0, 1) and U(+-1/sqrt(D))), as the
  // research's plain nn.Embedding / nn.Linear around the Llama layers; the layers get HF's init.
  encoder = register_module("encoder", torch::nn::ModuleList());
  decoder = register_module("decoder", torch::nn::ModuleList());
  for (int64_t i = 0; i < c.n_layers; ++i) {
    encoder->push_back(LlamaDecoderLayer(c));
    decoder->push_back(LlamaDecoderLayer(c));
  }
}

std::string TransformerAutoencoder::fileTensorName(const std::string& module_name) const {
  const std::string name = AutoencoderBase::fileTensorName(module_name);
  return replacePrefix(replacePrefix(name, "encoder.", wrappedLlamaLayers("encoder")), "decoder.",
                       wrappedLlamaLayers("decoder"));
}

bool TransformerAutoencoder::ignoresFileTensor(const std::string& name) const {
  return isUnusedWrappedLlamaTensor(name, {"encoder", "decoder"});
}

at::Tensor TransformerAutoencoder::encode(const at::Tensor& x) {
  at::Tensor h = torch::dropout(x, dropout_, is_training());
  for (const auto& layer : *encoder) h = layer->as<LlamaDecoderLayer>()->forward(h, rotary_);
  return h;
}

at::Tensor TransformerAutoencoder::decode(const at::Tensor& x) {
  at::Tensor h = torch::dropout(x, dropout_, is_training());
  for (const auto& layer : *decoder) h = layer->as<LlamaDecoderLayer>()->forward(h, rotary_);
  return h;
}

}  // namespace mixerlab
