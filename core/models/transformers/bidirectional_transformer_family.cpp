// Registry entry of the bidirectional transformer (docs/architectures.md): builder, validation, cost.
#include <string>

#include "core/models/families.h"
#include "core/models/transformers/bidirectional_transformer.h"

namespace mixerlab {

ArchitectureInfo bidirectionalTransformerFamily() {
  ArchitectureInfo info;
  info.name = "bidirectional_transformer";
  info.research_arm = ResearchArm::kBidirectionalTransformer;
  info.description =
      "Bidirectional transformer: forward + reverse causal Llama stacks, token t predicted from t-1 and t+1";
  info.model_keys = {"n_heads", "ff_mult", "rope_theta", "attention"};
  info.build = [](const ModelConfig& c) { return std::make_shared<BidirectionalTransformer>(c); };
  info.validate = [](const ModelConfig& c, std::vector<std::string>& problems) {
    validateCommonSizes(c, problems);
    validateAttentionHeads(c, /*rotary=*/true, problems);
    refuseTiedHead(c, "the bidirectional transformer's head is untied", problems);
    validateOptions(c, problems, [](JsonFields&) {});
  };
  info.cost = [](const ModelConfig& c, int64_t batch_size) {
    ModelCost cost;
    cost.batch_size = batch_size;
    const double tokens = static_cast<double>(batch_size) * c.context_length;
    for (const char* stack : {"forward_model", "reverse_model"}) {
      for (int64_t i = 0; i < c.n_layers; ++i) {
        cost.layers.push_back(llamaLayerCost(c, std::string(stack) + ".layers." + std::to_string(i), tokens));
      }
    }
    finishCost(c, cost, c.vocab_size * c.d_model,
               "Two causal Llama stacks of n_layers each: per layer 8*D^2 + 4*T*D + 6*ff_mult*D^2 FLOPs/token; "
               "the shifted streams are added before the head.");
    return cost;
  };
  return info;
}

}  // namespace mixerlab
