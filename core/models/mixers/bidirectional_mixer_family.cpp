// Registry entry of the bidirectional masked mixer (docs/architectures.md): builder, validation, cost.
#include <string>

#include "core/models/families.h"
#include "core/models/mixers/bidirectional_mixer.h"

namespace mixerlab {

ArchitectureInfo bidirectionalMixerFamily() {
  ArchitectureInfo info;
  info.name = "bidirectional_mixer";
  info.research_arm = ResearchArm::kBidirectionalMixer;
  info.description =
      "Bidirectional masked mixer: forward (j<=i) and reverse (j>=i+2) token-mixing streams with a shared "
      "feed-forward, combined before the head; output i predicts token i+1 without seeing it";
  info.model_keys = {"ff_mult", "kernel_size", "tie_weights"};
  info.options = bidirectionalMixerOptionFields().specs();
  info.build = [](const ModelConfig& c) { return std::make_shared<BidirectionalMixer>(c); };
  info.validate = [](const ModelConfig& c, std::vector<std::string>& problems) {
    validateCommonSizes(c, problems);
    if (c.kernel_size < 1) problems.push_back("kernel_size: must be >= 1, got " + std::to_string(c.kernel_size));
    validateOptionFields(c, problems, bidirectionalMixerOptionFields());
  };
  info.cost = [](const ModelConfig& c, int64_t batch_size) {
    ModelCost cost;
    cost.batch_size = batch_size;
    const double D = c.d_model, T = c.context_length, k = c.kernel_size, m = c.ff_mult;
    const double tokens = static_cast<double>(batch_size) * T;
    const int64_t conv = c.context_length * c.context_length * c.kernel_size + c.context_length;
    const int64_t ff = 2 * c.ff_mult * c.d_model * c.d_model + c.ff_mult * c.d_model + c.d_model;
    for (int64_t i = 0; i < c.n_layers; ++i) {
      LayerCost block;
      block.name = "mixerblocks." + std::to_string(i);
      block.parameters = 3 * 2 * c.d_model + 2 * conv + ff;  // 3 LayerNorms, convf + convr, one shared FF
      block.forward_flops_per_token = 2.0 * (2.0 * T * D * k + 4.0 * m * D * D);  // both streams
      block.activation_bytes = tokens * 2.0 * (4.0 * D + 2.0 * m * D) * 4.0;
      cost.layers.push_back(block);
    }
    finishCost(c, cost, c.tie_weights ? 0 : c.vocab_size * c.d_model,
               "Bidirectional block: 2 streams x (2*T*D*k token mix + 4*ff_mult*D^2 feed-forward) FLOPs/token.");
    return cost;
  };
  return info;
}

}  // namespace mixerlab
