// The interface every model family implements: token ids in, next-token logits out, plus the loss
// convention and the research-compatible tensor names used for safetensors import/export.
#pragma once
#include <map>
#include <memory>
#include <string>

#include <torch/nn/module.h>

#include "core/models/model_config.h"

namespace mixerlab {

class LanguageModel : public torch::nn::Module {
 public:
  explicit LanguageModel(ModelConfig config) : config_(std::move(config)) {}
  ~LanguageModel() override = default;

  // input_ids [B, L] (int64, L <= context_length) -> logits [B, L, V]; output t predicts token t+1.
  virtual at::Tensor forward(const at::Tensor& input_ids) = 0;

  // Hidden state after the last block, before any final norm / head: [B, L, D].
  virtual at::Tensor hiddenStates(const at::Tensor& input_ids) = 0;

  // Mean cross-entropy of the shifted prediction (logits at 0..L-2 vs labels 1..L-1), ignoring -100.
  virtual at::Tensor loss(const at::Tensor& logits, const at::Tensor& labels) const;

  // Tensors under the research code's names, in the form the PyTorch reference expects
  // (e.g. the mixer's token-mixing weights with their upper triangle zeroed).
  virtual std::map<std::string, at::Tensor> exportTensors();

  // Called after weights were loaded from disk (e.g. to re-apply masks).
  virtual void afterLoad() {}

  const ModelConfig& config() const { return config_; }
  int64_t parameterCount() const;

 protected:
  ModelConfig config_;
};

using LanguageModelPtr = std::shared_ptr<LanguageModel>;

// Shifted next-token cross-entropy used by causal LMs (see LanguageModel::loss).
at::Tensor shiftedCrossEntropy(const at::Tensor& logits, const at::Tensor& labels);

}  // namespace mixerlab
