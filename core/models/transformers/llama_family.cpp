// Registry entry of the Llama-style transformer: builder, validation, analytic cost and how it generates.
#include <string>

#include "core/models/families.h"
#include "core/models/transformers/llama_step.h"
#include "core/models/transformers/llama_transformer.h"

namespace mixerlab {

ArchitectureInfo llamaFamily() {
  ArchitectureInfo info;
  info.name = "llama";
  info.description = "Llama-style transformer: RMSNorm, RoPE, causal MHA, SwiGLU (ff_mult*D), final norm";
  info.model_keys = {"n_heads", "ff_mult", "tie_weights", "rope_theta", "objective", "mtp_tokens", "attention"};
  info.options = llamaOptionFields().specs();
  info.build = [](const ModelConfig& c) { return std::make_shared<LlamaTransformer>(c); };
  info.validate = [](const ModelConfig& c, std::vector<std::string>& problems) {
    validateCommonSizes(c, problems);
    validateAttentionHeads(c, /*rotary=*/true, problems);
    validateOptionFields(c, problems, llamaOptionFields());
  };
  info.cost = [](const ModelConfig& c, int64_t batch_size) {
    ModelCost cost;
    cost.batch_size = batch_size;
    const double D = c.d_model;
    const double tokens = static_cast<double>(batch_size) * c.context_length;
    for (int64_t i = 0; i < c.n_layers; ++i) {
      cost.layers.push_back(llamaLayerCost(c, "model.layers." + std::to_string(i), tokens));
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
  info.generation = GenerationSupport{ContextPolicy::kSlideWindow, FastDecoder::kKvCache, makeLlamaStack, {}};
  info.research_arm = ResearchArm::kTransformer;
  return info;
}

}  // namespace mixerlab
