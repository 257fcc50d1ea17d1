// Registry entry of the GPT-style baseline (HF OpenAIGPT defaults): builder, validation, cost, generation.
#include <string>

#include "core/models/families.h"
#include "core/models/transformers/gpt_step.h"
#include "core/models/transformers/gpt_transformer.h"

namespace mixerlab {

ArchitectureInfo gptFamily() {
  ArchitectureInfo info;
  info.name = "gpt";
  info.research_arm = ResearchArm::kGpt;
  info.description =
      "GPT baseline (HF OpenAIGPT): learned positions, post-LN, fused QKV, GELU(tanh), dropout, tied head";
  info.model_keys = {"n_heads", "ff_mult", "objective", "mtp_tokens", "attention"};
  info.options = gptOptionFields().specs();
  info.build = [](const ModelConfig& c) { return std::make_shared<GptTransformer>(c); };
  info.validate = [](const ModelConfig& c, std::vector<std::string>& problems) {
    validateCommonSizes(c, problems);
    validateAttentionHeads(c, /*rotary=*/false, problems);
    validateOptionFields(c, problems, gptOptionFields());
  };
  info.cost = [](const ModelConfig& c, int64_t batch_size) {
    ModelCost cost;
    cost.batch_size = batch_size;
    const int64_t d = c.d_model, m = c.ff_mult;
    const double D = d, T = c.context_length, M = m, H = c.n_heads;
    const double tokens = static_cast<double>(batch_size) * T;
    cost.layers.push_back({"transformer.positions_embed", c.context_length * d, 0.0, 0.0});
    for (int64_t i = 0; i < c.n_layers; ++i) {
      LayerCost layer;
      layer.name = "transformer.h." + std::to_string(i);
      // c_attn D*3D+3D, attn.c_proj D*D+D, c_fc D*mD+mD, mlp.c_proj mD*D+D, ln_1 and ln_2 2D each.
      layer.parameters = 4 * d * d + 2 * m * d * d + 9 * d + m * d;
      layer.forward_flops_per_token = 8.0 * D * D + 4.0 * T * D + 4.0 * M * D * D;
      // q/k/v, attended, projections, residual sums, two LNs (~12D), MLP hidden (2mD), scores +
      // probabilities + dropout mask (3*H*T).
      layer.activation_bytes = tokens * (12.0 * D + 2.0 * M * D + 3.0 * H * T) * 4.0;
      cost.layers.push_back(layer);
    }
    finishCost(c, cost, 0,
               "GPT block: 8*D^2 (fused q,k,v + output projection) + 4*T*D (scores and weighted sum over the full "
               "context) + 4*ff_mult*D^2 (MLP) FLOPs/token; head tied to the token embedding.");
    return cost;
  };
  info.generation = GenerationSupport{ContextPolicy::kSlideWindow, FastDecoder::kKvCache, makeGptStack, {}};
  return info;
}

}  // namespace mixerlab
