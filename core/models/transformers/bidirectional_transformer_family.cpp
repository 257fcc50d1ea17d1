// Registry entry of the bidirectional transformer (spec section 5): builder, validation, cost.
#include <string>

#include "core/models/families.h"
#include "core/models/transformers/bidirectional_transformer.h"

namespace mixerlab {

ArchitectureInfo bidirectionalTransformerFamily() {
  ArchitectureInfo info;
  info.name = "bidirectional_transformer";
  info.description =
      "Bidirectional transformer: forward + reverse causal Llama stacks, token t predicted from t-1 and t+1";
  info.model_keys = {"n_heads", "ff_mult", "rope_theta"};
  info.build = [](const ModelConfig& c) { return std::make_shared<BidirectionalTransformer>(c); };
  info.validate = [](const ModelConfig& c, std::vector<std::string>& problems) {
    validateCommonSizes(c, problems);
    validateAttentionHeads(c, /*rotary=*/true, problems);
    if (c.tie_weights)
      problems.push_back("tie_weights: the bidirectional transformer's head is untied; set it to false");
    validateOptions(c, problems, [](JsonFields&) {});
  };
  info.cost = [](const ModelConfig& c, int64_t batch_size) {
    ModelCost cost;
    cost.batch_size = batch_size;
    const int64_t d = c.d_model;
    const double D = d, T = c.context_length, m = c.ff_mult, H = c.n_heads;
    const double tokens = static_cast<double>(batch_size) * T;
    for (const char* stack : {"forward_model", "reverse_model"}) {
      for (int64_t i = 0; i < c.n_layers; ++i) {
        LayerCost layer;
        layer.name = std::string(stack) + ".layers." + std::to_string(i);
        layer.parameters = 4 * d * d + 3 * c.ff_mult * d * d + 2 * d;
        layer.forward_flops_per_token = 8.0 * D * D + 4.0 * T * D + 6.0 * m * D * D;
        layer.activation_bytes = tokens * (10.0 * D + 4.0 * m * D + 2.0 * H * T) * 4.0;
        cost.layers.push_back(layer);
      }
    }
    finishCost(c, cost, c.vocab_size * d,
               "Two causal Llama stacks of n_layers each: per layer 8*D^2 + 4*T*D + 6*ff_mult*D^2 FLOPs/token; "
               "the shifted streams are added before the head.");
    return cost;
  };
  return info;
}

}  // namespace mixerlab
