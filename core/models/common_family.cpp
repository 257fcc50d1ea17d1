// Validation and cost helpers shared by the family registry entries.
#include "core/models/families.h"

#include "core/util/error.h"

namespace mixerlab {

void validateCommonSizes(const ModelConfig& c, std::vector<std::string>& problems) {
  auto positive = [&](const char* name, int64_t v) {
    if (v <= 0) problems.push_back(std::string(name) + ": must be a positive integer, got " + std::to_string(v));
  };
  positive("vocab_size", c.vocab_size);
  positive("d_model", c.d_model);
  positive("n_layers", c.n_layers);
  positive("context_length", c.context_length);
  positive("ff_mult", c.ff_mult);
  if (c.context_length < 2) problems.push_back("context_length: must be at least 2 to predict a next token");
}

void validateAttentionHeads(const ModelConfig& c, bool rotary, std::vector<std::string>& problems) {
  if (c.n_heads <= 0) {
    problems.push_back("n_heads: must be a positive integer, got " + std::to_string(c.n_heads));
  } else if (c.d_model % c.n_heads != 0 || (rotary && (c.d_model / c.n_heads) % 2 != 0)) {
    problems.push_back("n_heads: d_model (" + std::to_string(c.d_model) + ") must be divisible by n_heads (" +
                       std::to_string(c.n_heads) + ")" +
                       (rotary ? " with an even head dimension for rotary positions" : ""));
  }
}

void refuseTiedHead(const ModelConfig& c, const std::string& untied_head, std::vector<std::string>& problems) {
  if (c.tie_weights) problems.push_back("tie_weights: " + untied_head + "; set it to false");
}

void validateOptions(const ModelConfig& c, std::vector<std::string>& problems,
                     const std::function<void(JsonFields&)>& read) {
  try {
    JsonFields fields(c.options.is_null() ? nlohmann::json::object() : c.options, "", "options");
    read(fields);
    fields.rejectUnknownKeys();
  } catch (const std::exception& e) {
    std::string message = e.what();
    if (message.rfind(": ", 0) == 0) message = message.substr(2);  // no file name at this level
    problems.push_back(message);
  }
}

LayerCost llamaLayerCost(const ModelConfig& c, const std::string& name, double tokens) {
  const double D = c.d_model, T = c.context_length, m = c.ff_mult, H = c.n_heads;
  LayerCost layer;
  layer.name = name;
  layer.parameters = 4 * c.d_model * c.d_model + 3 * c.ff_mult * c.d_model * c.d_model + 2 * c.d_model;
  layer.forward_flops_per_token = 8.0 * D * D + 4.0 * T * D + 6.0 * m * D * D;
  // norms/residuals/q/k/v/rotations/attended (10D), SwiGLU (4mD), scores + probabilities (2*H*T).
  layer.activation_bytes = tokens * (10.0 * D + 4.0 * m * D + 2.0 * H * T) * 4.0;
  return layer;
}

void finishCost(const ModelConfig& c, ModelCost& cost, int64_t head_parameters, const std::string& formula) {
  const double tokens = static_cast<double>(cost.batch_size) * static_cast<double>(c.context_length);
  const double bytes = 4.0;
  LayerCost embedding{"embedding", c.vocab_size * c.d_model, 0.0, tokens * c.d_model * bytes};
  LayerCost head{"lm_head", head_parameters, 2.0 * c.d_model * c.vocab_size,
                 // logits and their softmax for the cross-entropy backward
                 2.0 * tokens * c.vocab_size * bytes};
  cost.layers.insert(cost.layers.begin(), embedding);
  cost.layers.push_back(head);
  cost.parameters = 0;
  cost.forward_flops_per_token = 0;
  cost.activation_bytes = 0;
  for (const auto& l : cost.layers) {
    cost.parameters += l.parameters;
    cost.forward_flops_per_token += l.forward_flops_per_token;
    cost.activation_bytes += l.activation_bytes;
  }
  cost.training_flops_per_token = 3.0 * cost.forward_flops_per_token;
  cost.weight_bytes = bytes * cost.parameters;
  cost.gradient_bytes = bytes * cost.parameters;
  cost.optimizer_bytes = 2.0 * bytes * cost.parameters;
  cost.formula = formula +
                 " Head: 2*D*V FLOPs/token. Training = 3 x forward (backward ~ 2 x forward). Activation memory "
                 "counts fp32 tensors saved for backward for batch_size x context_length tokens.";
}

}  // namespace mixerlab
