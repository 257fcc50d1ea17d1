// Registry entry of the Llama-style transformer: builder, validation and analytic cost.
#include <string>

#include "core/models/families.h"
#include "core/models/transformers/llama_transformer.h"

namespace mixerlab {

ArchitectureInfo llamaFamily() {
  ArchitectureInfo info;
  info.name = "llama";
  info.description = "Llama-style transformer: RMSNorm, RoPE, causal MHA, SwiGLU (ff_mult*D), final norm";
  info.model_keys = {"n_heads", "ff_mult", "tie_weights", "rope_theta", "objective", "mtp_tokens"};
  info.build = [](const ModelConfig& c) { return std::make_shared<LlamaTransformer>(c); };
  info.validate = [](const ModelConfig& c, std::vector<std::string>& problems) {
    validateCommonSizes(c, problems);
    validateAttentionHeads(c, /*rotary=*/true, problems);
  };
  info.cost = [](const ModelConfig& c, int64_t batch_size) {
    ModelCost cost;
    cost.batch_size = batch_size;
    const double D = c.d_model, T = c.context_length, m = c.ff_mult, H = c.n_heads;
    const double tokens = static_cast<double>(batch_size) * T;
    for (int64_t i = 0; i < c.n_layers; ++i) {
      LayerCost layer;
      layer.name = "model.layers." + std::to_string(i);
      layer.parameters = 4 * c.d_model * c.d_model + 3 * c.ff_mult * c.d_model * c.d_model + 2 * c.d_model;
      layer.forward_flops_per_token = 8.0 * D * D + 4.0 * T * D + 6.0 * m * D * D;
      // norms/residuals/q/k/v/rotations/attended (10D), SwiGLU (4mD), scores + probabilities (2*H*T).
      layer.activation_bytes = tokens * (10.0 * D + 4.0 * m * D + 2.0 * H * T) * 4.0;
      cost.layers.push_back(layer);
    }
    if (!llamaIsCompletionModel(c)) {  // the completion model has no final norm
      LayerCost final_norm{"model.norm", c.d_model, 0.0, tokens * D * 4.0};
      cost.layers.push_back(final_norm);
    }
    finishCost(c, cost, c.tie_weights ? 0 : c.vocab_size * c.d_model,
               "Llama layer: 8*D^2 (q,k,v,o) + 4*T*D (scores and weighted sum over the full context, as "
               "computed) + 6*ff_mult*D^2 (SwiGLU) FLOPs/token.");
    return cost;
  };
  return info;
}

}  // namespace mixerlab
