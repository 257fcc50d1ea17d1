// Training objectives wrapped around any model family (docs/architectures.md):
// - multi-token prediction: pass 0 runs the model on the real tokens; pass i >= 1 runs the same
//   model on the argmax tokens of pass i-1 (no gradient through the argmax); pass i's logits at
//   positions 0..L-2-i are scored against labels 1+i..L-1; the training loss is the SUM of the
//   per-pass mean cross-entropies, as in the research code.
// - one-step completion: the hidden states of positions >= L/2 are zeroed after the middle block,
//   and the loss is the unshifted cross-entropy on positions >= L/2 (position t predicts token t
//   from tokens < L/2 only).
// The wrappers re-register the base model's children, so tensor names are unchanged.
#pragma once
#include "core/models/language_model.h"

namespace mixerlab {

class ObjectiveWrapper : public LanguageModel {
 public:
  explicit ObjectiveWrapper(LanguageModelPtr base);
  at::Tensor forward(const at::Tensor& input_ids) override { return base_->forward(input_ids); }
  at::Tensor hiddenStates(const at::Tensor& input_ids) override { return base_->hiddenStates(input_ids); }
  int64_t representationLayers() const override { return base_->representationLayers(); }
  at::Tensor tokenEmbeddingMatrix() override { return base_->tokenEmbeddingMatrix(); }
  at::Tensor positionEmbeddings(int64_t length) override { return base_->positionEmbeddings(length); }
  at::Tensor layerOutput(const at::Tensor& embeds, int64_t layer) override { return base_->layerOutput(embeds, layer); }
  std::map<std::string, at::Tensor> moduleTensors() override { return base_->moduleTensors(); }
  std::string fileTensorName(const std::string& name) const override { return base_->fileTensorName(name); }
  bool ignoresFileTensor(const std::string& name) const override { return base_->ignoresFileTensor(name); }
  void afterLoad() override { base_->afterLoad(); }
  void train(bool on = true) override;
  LanguageModel& base() { return *base_; }

 protected:
  LanguageModelPtr base_;
};

class MultiTokenPrediction : public ObjectiveWrapper {
 public:
  explicit MultiTokenPrediction(LanguageModelPtr base) : ObjectiveWrapper(std::move(base)) {}
  // Returns pass 0's logits (next-token predictions), so scoring and generation behave as for a
  // plain causal LM (the research code returned the last pass). In training mode it also runs the
  // extra passes and keeps their logits for loss().
  at::Tensor forward(const at::Tensor& input_ids) override;
  // Training: sum over passes. Evaluation: pass 0's next-token cross-entropy, comparable with
  // other models' eval loss.
  at::Tensor loss(const at::Tensor& logits, const at::Tensor& labels) const override;

 private:
  std::vector<at::Tensor> extra_pass_logits_;  // passes 1..n-1 of the last training forward
};

// Tensor names follow the research's completion models, which hold separate encoder and decoder
// stacks: mixer blocks 0..N/2-1 are encoderblocks.*, the rest decoderblocks.*; Llama layers are
// encoder.model.model.layers.* / decoder.model.model.layers.* (each stack was a LlamaForCausalLM
// whose embedding, norm and head the research never used) and the embedding is wte.
class OneStepCompletion : public ObjectiveWrapper {
 public:
  explicit OneStepCompletion(LanguageModelPtr base);
  at::Tensor loss(const at::Tensor& logits, const at::Tensor& labels) const override;
  int64_t targetCount(const at::Tensor& labels) const override;
  std::string fileTensorName(const std::string& name) const override;
  bool ignoresFileTensor(const std::string& name) const override;
};

// Wraps `base` according to config.objective ("next_token" returns it unchanged).
LanguageModelPtr applyObjective(LanguageModelPtr base);
// Appends "objective: ..." / "mtp_tokens: ..." problems.
void validateObjective(const ModelConfig& config, std::vector<std::string>& problems);

}  // namespace mixerlab
