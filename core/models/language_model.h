// The interface every model family implements: token ids in, next-token logits out, plus the loss
// convention and the research-compatible tensor names used for safetensors import/export.
#pragma once
#include <functional>
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

  // The states sentence embeddings are read from (retrieval, docs/retrieval.md): [B, L, D]. The last
  // block's output for language models; the autoencoders override it with their encoder's output,
  // which the research's retrieval read at the last position.
  virtual at::Tensor embeddingStates(const at::Tensor& input_ids) { return hiddenStates(input_ids); }
  // The same after the family's final norm, as Hugging Face's hidden_states[-1] reads a Llama (the
  // paper-era retrieval embedding of a transformer); families without a final norm return
  // embeddingStates().
  virtual at::Tensor finalNormStates(const at::Tensor& input_ids) { return embeddingStates(input_ids); }

  // Representation access (inversion, retrieval): the model read as a stack of blocks over an input
  // embedding. inputEmbeddings(ids) is what the first block reads ([B, L, D]: the token embedding,
  // plus learned position embeddings where the family has them); layerOutput(embeds, k) runs blocks
  // 1..k on it and returns block k's output: k = 0 gives the embeddings back, k =
  // representationLayers() the same as hiddenStates(). Families opt in; representationLayers() is 0
  // for the others and their calls throw MixerLabError.
  virtual int64_t representationLayers() const { return 0; }
  virtual at::Tensor tokenEmbeddingMatrix();  // [V, D], the matrix inputEmbeddings() looks tokens up in
  virtual at::Tensor positionEmbeddings(int64_t /*length*/) { return {}; }  // [L, D] added to it, or undefined
  virtual at::Tensor layerOutput(const at::Tensor& embeds, int64_t layer);
  at::Tensor inputEmbeddings(const at::Tensor& input_ids);

  // Mean cross-entropy of the shifted prediction (logits at 0..L-2 vs labels 1..L-1), ignoring -100.
  // Families with another objective (autoencoders, bidirectional, multi-token) override it.
  virtual at::Tensor loss(const at::Tensor& logits, const at::Tensor& labels) const;

  // Number of targets loss() averages over for these labels (weights batches in evaluation).
  virtual int64_t targetCount(const at::Tensor& labels) const;

  // Which token the logits at position t score: t + 1 for causal LMs, t for models that see both
  // sides or reconstruct their input (bidirectional transformer, autoencoders).
  virtual int64_t predictionOffset() const { return 1; }

  // Tensors under the research code's names, in the form the PyTorch reference expects (e.g. the
  // mixer's token-mixing weights with their upper triangle zeroed): moduleTensors() renamed by
  // fileTensorName(). This is what checkpoints and `mixerlab export` write.
  std::map<std::string, at::Tensor> exportTensors();

  // The tensors to export keyed by their path in this module tree (parameters, plus any export
  // form a family needs: masked weights, a tied head's copy).
  virtual std::map<std::string, at::Tensor> moduleTensors();

  // The name a tensor has in the research code's checkpoints, given its path in this module tree.
  // The identity for families whose module tree mirrors the research's; families whose research
  // model was built differently (HF models wrapped in other modules, renamed submodules) map here.
  virtual std::string fileTensorName(const std::string& module_name) const { return module_name; }

  // True for tensors research checkpoints carry that this model does not use (e.g. the unused
  // embedding, final norm and head of a LlamaForCausalLM the research wrapped for its layers);
  // loaders skip them.
  virtual bool ignoresFileTensor(const std::string& /*file_name*/) const { return false; }

  // True when exportTensors() writes lm_head.weight as a copy of the input embedding (a tied
  // head); loaders then drop that copy instead of looking for a parameter of that name.
  virtual bool exportsTiedHead() const { return config_.tie_weights; }

  // Called after weights were loaded from disk (e.g. to re-apply masks).
  virtual void afterLoad() {}

  const ModelConfig& config() const { return config_; }
  int64_t parameterCount() const;

  // Optional function applied to the hidden state after each block (layer index from 0); families
  // call applyLayerHook() in their block loops. Used by objectives that act between layers (the
  // one-step completion model zeroes the second half after the middle layer).
  using LayerHook = std::function<at::Tensor(int64_t layer, const at::Tensor& hidden)>;
  void setLayerHook(LayerHook hook) { layer_hook_ = std::move(hook); }
  bool supportsLayerHook() const { return supports_layer_hook_; }
  bool hasLayerHook() const { return static_cast<bool>(layer_hook_); }

 protected:
  at::Tensor applyLayerHook(int64_t layer, const at::Tensor& hidden) const {
    return layer_hook_ ? layer_hook_(layer, hidden) : hidden;
  }
  ModelConfig config_;
  bool supports_layer_hook_ = false;  // set by families whose block loop calls applyLayerHook()

 private:
  LayerHook layer_hook_;
};

using LanguageModelPtr = std::shared_ptr<LanguageModel>;

// Shifted next-token cross-entropy used by causal LMs (see LanguageModel::loss).
at::Tensor shiftedCrossEntropy(const at::Tensor& logits, const at::Tensor& labels);

}  // namespace mixerlab
