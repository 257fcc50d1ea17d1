// Multi-token prediction and one-step completion objectives (see objectives.h).
#include "core/models/objectives.h"

#include <torch/torch.h>

#include "core/models/research_names.h"
#include "core/util/error.h"

namespace mixerlab {
namespace F = torch::nn::functional;

namespace {
// Cross-entropy of logits at position t against labels[t + shift]; positions without a target
// (and labels of -100) are ignored.
at::Tensor crossEntropyWithShift(const at::Tensor& logits, const at::Tensor& labels, int64_t shift) {
  const int64_t length = labels.size(1);
  auto targets = torch::full_like(labels, -100);
  if (length > shift) targets.narrow(1, 0, length - shift).copy_(labels.narrow(1, shift, length - shift));
  return F::cross_entropy(logits.reshape({-1, logits.size(2)}), targets.reshape({-1}),
                          F::CrossEntropyFuncOptions().ignore_index(-100));
}

at::Tensor secondHalfTargets(const at::Tensor& labels) {
  auto targets = labels.clone();
  targets.narrow(1, 0, labels.size(1) / 2).fill_(-100);
  return targets;
}
}  // namespace

ObjectiveWrapper::ObjectiveWrapper(LanguageModelPtr base) : LanguageModel(base->config()), base_(std::move(base)) {
  for (const auto& child : base_->named_children()) register_module(child.key(), child.value());
  for (const auto& p : base_->named_parameters(/*recurse=*/false)) register_parameter(p.key(), p.value());
  for (const auto& b : base_->named_buffers(/*recurse=*/false)) register_buffer(b.key(), b.value());
}

void ObjectiveWrapper::train(bool on) {
  LanguageModel::train(on);
  base_->train(on);
}

at::Tensor MultiTokenPrediction::forward(const at::Tensor& input_ids) {
  auto logits = base_->forward(input_ids);
  extra_pass_logits_.clear();
  if (!is_training()) return logits;
  at::Tensor previous = logits;
  for (int64_t pass = 1; pass < config_.mtp_tokens; ++pass) {
    at::Tensor next_ids;
    {
      torch::NoGradGuard no_grad;
      next_ids = previous.argmax(-1);
    }
    previous = base_->forward(next_ids);
    extra_pass_logits_.push_back(previous);
  }
  return logits;
}

at::Tensor MultiTokenPrediction::loss(const at::Tensor& logits, const at::Tensor& labels) const {
  auto total = crossEntropyWithShift(logits, labels, 1);
  if (!is_training()) return total;
  for (size_t i = 0; i < extra_pass_logits_.size(); ++i) {
    total = total + crossEntropyWithShift(extra_pass_logits_[i], labels, static_cast<int64_t>(i) + 2);
  }
  return total;
}

OneStepCompletion::OneStepCompletion(LanguageModelPtr base) : ObjectiveWrapper(std::move(base)) {
  const int64_t middle = config_.n_layers / 2 - 1;
  base_->setLayerHook([middle](int64_t layer, const at::Tensor& hidden) {
    if (layer != middle) return hidden;
    auto mask = torch::ones({hidden.size(1)}, hidden.options());
    mask.narrow(0, hidden.size(1) / 2, hidden.size(1) - hidden.size(1) / 2).zero_();
    return hidden * mask.view({1, -1, 1});
  });
}

at::Tensor OneStepCompletion::loss(const at::Tensor& logits, const at::Tensor& labels) const {
  return F::cross_entropy(logits.reshape({-1, logits.size(2)}), secondHalfTargets(labels).reshape({-1}),
                          F::CrossEntropyFuncOptions().ignore_index(-100));
}

int64_t OneStepCompletion::targetCount(const at::Tensor& labels) const {
  return secondHalfTargets(labels).ne(-100).sum().item<int64_t>();
}

std::string OneStepCompletion::fileTensorName(const std::string& name) const {
  const std::string n = base_->fileTensorName(name);
  const int64_t half = config_.n_layers / 2;
  if (startsWith(n, "mixerblocks.")) return splitStackName(n, "mixerblocks.", half, "encoderblocks.", "decoderblocks.");
  if (startsWith(n, "model.layers.")) {
    return splitStackName(n, "model.layers.", half, wrappedLlamaLayers("encoder"), wrappedLlamaLayers("decoder"));
  }
  if (n == "model.embed_tokens.weight") return "wte.weight";
  return n;
}

bool OneStepCompletion::ignoresFileTensor(const std::string& name) const {
  return base_->ignoresFileTensor(name) || isUnusedWrappedLlamaTensor(name, {"encoder", "decoder"});
}

void validateObjective(const ModelConfig& c, std::vector<std::string>& problems) {
  if (c.objective == ModelObjective::kMultiToken && (c.mtp_tokens < 2 || c.mtp_tokens > 16)) {
    problems.push_back("mtp_tokens: expected an integer between 2 and 16, got " + std::to_string(c.mtp_tokens));
  }
  if (c.objective == ModelObjective::kMultiToken && c.options.is_object() &&
      c.options.value("mixing_weights", "") == "softmax_compat") {
    // The research coding rewrites the weight parameter in place every forward; the extra passes
    // would modify a tensor the first pass's backward still needs.
    problems.push_back(
        "options.mixing_weights: \"softmax_compat\" rewrites the mixing weights in place on every forward, which "
        "the extra passes of objective \"multi_token\" cannot share; use mixing_weights \"softmax\" (the same "
        "causal softmax computed in the graph) with multi_token");
  }
  if (c.objective == ModelObjective::kOneStepCompletion && (c.n_layers < 2 || c.n_layers % 2 != 0)) {
    problems.push_back(
        "n_layers: one_step_completion splits the blocks into encoder and decoder halves, so n_layers "
        "must be even and >= 2, got " +
        std::to_string(c.n_layers));
  }
}

LanguageModelPtr applyObjective(LanguageModelPtr base) {
  const ModelConfig& c = base->config();
  if (c.objective == ModelObjective::kMultiToken) return std::make_shared<MultiTokenPrediction>(std::move(base));
  if (c.objective == ModelObjective::kOneStepCompletion) {
    if (!base->supportsLayerHook()) {
      throw MixerLabError("architecture \"" + c.arch + "\" does not support the one_step_completion objective",
                          "use masked_mixer or llama for one_step_completion");
    }
    return std::make_shared<OneStepCompletion>(std::move(base));
  }
  return base;
}

}  // namespace mixerlab
