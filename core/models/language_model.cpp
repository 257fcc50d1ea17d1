// Shared behaviour of all language models: shifted CE loss, parameter count, default export.
#include "core/models/language_model.h"

#include <torch/torch.h>

#include "core/util/error.h"

namespace mixerlab {

at::Tensor shiftedCrossEntropy(const at::Tensor& logits, const at::Tensor& labels) {
  // Shift the labels rather than slicing the logits: output t is scored against label t+1 and the
  // last position gets -100. Same value as slicing, without copying the [B, L, V] logits (and
  // their gradient) for the slice.
  const int64_t length = labels.size(1);
  auto targets = torch::full_like(labels, -100);
  targets.narrow(1, 0, length - 1).copy_(labels.narrow(1, 1, length - 1));
  return torch::nn::functional::cross_entropy(logits.reshape({-1, logits.size(2)}), targets.reshape({-1}),
                                              torch::nn::functional::CrossEntropyFuncOptions().ignore_index(-100));
}

at::Tensor LanguageModel::loss(const at::Tensor& logits, const at::Tensor& labels) const {
  return shiftedCrossEntropy(logits, labels);
}

int64_t LanguageModel::targetCount(const at::Tensor& labels) const {
  return labels.narrow(1, 1, labels.size(1) - 1).ne(-100).sum().item<int64_t>();
}

std::map<std::string, at::Tensor> LanguageModel::moduleTensors() {
  std::map<std::string, at::Tensor> out;
  for (const auto& item : named_parameters(/*recurse=*/true)) out[item.key()] = item.value().detach();
  return out;
}

std::map<std::string, at::Tensor> LanguageModel::exportTensors() {
  std::map<std::string, at::Tensor> out;
  for (auto& [name, tensor] : moduleTensors()) out[fileTensorName(name)] = tensor;
  return out;
}

namespace {
[[noreturn]] void noRepresentations(const ModelConfig& c) {
  throw MixerLabError("architecture \"" + c.arch + "\" does not expose its layers as a stack over an input embedding",
                      "use masked_mixer, bidirectional_mixer, llama, gpt, transfixer or mamba");
}
}  // namespace

at::Tensor LanguageModel::tokenEmbeddingMatrix() { noRepresentations(config_); }
at::Tensor LanguageModel::layerOutput(const at::Tensor&, int64_t) { noRepresentations(config_); }

at::Tensor LanguageModel::inputEmbeddings(const at::Tensor& input_ids) {
  auto embeds = torch::nn::functional::embedding(input_ids, tokenEmbeddingMatrix());
  auto positions = positionEmbeddings(input_ids.size(1));
  return positions.defined() ? embeds + positions : embeds;
}

int64_t LanguageModel::parameterCount() const {
  int64_t total = 0;
  for (const auto& p : parameters(/*recurse=*/true)) total += p.numel();
  return total;
}

}  // namespace mixerlab
