// Registry entry of the flat masked mixer: builder, validation and analytic cost.
#include <string>

#include "core/models/families.h"
#include "core/models/masked_mixer.h"

namespace mixerlab {

ArchitectureInfo maskedMixerFamily() {
  ArchitectureInfo info;
  info.name = "masked_mixer";
  info.description = "Flat masked mixer: causal token-mixing Conv1d(T,T,k) + 4x GELU feed-forward, no attention";
  info.build = [](const ModelConfig& c) { return std::make_shared<MaskedMixer>(c); };
  info.validate = [](const ModelConfig& c, std::vector<std::string>& problems) {
    validateCommonSizes(c, problems);
    if (c.kernel_size < 1) problems.push_back("kernel_size: must be >= 1, got " + std::to_string(c.kernel_size));
  };
  info.cost = [](const ModelConfig& c, int64_t batch_size) {
    ModelCost cost;
    cost.batch_size = batch_size;
    const double D = c.d_model, T = c.context_length, k = c.kernel_size, m = c.ff_mult;
    const double tokens = static_cast<double>(batch_size) * T;
    for (int64_t i = 0; i < c.n_layers; ++i) {
      LayerCost block;
      block.name = "mixerblocks." + std::to_string(i);
      block.parameters = 4 * c.d_model + c.context_length * c.context_length * c.kernel_size + c.context_length +
                         2 * c.ff_mult * c.d_model * c.d_model + c.ff_mult * c.d_model + c.d_model;
      block.forward_flops_per_token = 2.0 * T * D * k + 4.0 * m * D * D;
      // LN inputs/outputs (4D), FF hidden before and after GELU (2mD).
      block.activation_bytes = tokens * (4.0 * D + 2.0 * m * D) * 4.0;
      cost.layers.push_back(block);
    }
    finishCost(c, cost, c.tie_weights ? 0 : c.vocab_size * c.d_model,
               "Mixer block: 2*T*D*k (dense masked token mix; the causal half is zeros) + 4*ff_mult*D^2 "
               "(feed-forward) FLOPs/token.");
    return cost;
  };
  return info;
}

}  // namespace mixerlab
