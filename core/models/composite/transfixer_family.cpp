// Registry entry of the Transfixer (Llama + masked token-mixing conv): builder, validation, cost, generation.
#include <string>

#include "core/models/composite/transfixer.h"
#include "core/models/composite/transfixer_step.h"
#include "core/models/families.h"

namespace mixerlab {

ArchitectureInfo transfixerFamily() {
  ArchitectureInfo info;
  info.name = "transfixer";
  info.research_arm = ResearchArm::kTransfixer;
  info.description = "Transfixer: Llama layers plus a causally masked token-mixing Conv1d(T,T,k) per layer";
  info.model_keys = {"n_heads", "ff_mult", "rope_theta", "objective", "mtp_tokens", "attention"};
  info.options = transfixerOptionFields().specs();
  info.build = [](const ModelConfig& c) { return std::make_shared<Transfixer>(c); };
  info.validate = [](const ModelConfig& c, std::vector<std::string>& problems) {
    validateCommonSizes(c, problems);
    validateAttentionHeads(c, /*rotary=*/true, problems);
    refuseTiedHead(c, "the transfixer's head is untied (as HF Llama)", problems);
    validateOptionFields(c, problems, transfixerOptionFields());
  };
  info.cost = [](const ModelConfig& c, int64_t batch_size) {
    ModelCost cost;
    cost.batch_size = batch_size;
    const auto o = TransfixerOptions::fromConfig(c);
    const int64_t d = c.d_model, t = c.context_length;
    const double D = d, T = t, k = o.conv_kernel_size;
    const double tokens = static_cast<double>(batch_size) * T;
    for (int64_t i = 0; i < c.n_layers; ++i) {
      // A Llama layer + conv weight T*T*k and bias T (+ conv_layernorm D), the conv's 2*T*D*k
      // FLOPs/token and its input and output (2D per token).
      LayerCost layer = llamaLayerCost(c, "model.layers." + std::to_string(i), tokens);
      layer.parameters += t * t * o.conv_kernel_size + t + (o.placement() == ConvPlacement::BeforeAttention ? d : 0);
      layer.forward_flops_per_token += 2.0 * T * D * k;
      layer.activation_bytes += tokens * 2.0 * D * 4.0;
      cost.layers.push_back(layer);
    }
    cost.layers.push_back({"model.norm", d, 0.0, tokens * D * 4.0});
    finishCost(c, cost, c.vocab_size * d,
               "Transfixer layer: Llama layer (8*D^2 + 4*T*D + 6*ff_mult*D^2) + 2*T*D*k for the dense masked "
               "token conv (the causal half is zeros) FLOPs/token.");
    return cost;
  };
  info.generation = GenerationSupport{ContextPolicy::kStopAtWindowEnd, FastDecoder::kKvCache, makeTransfixerStack, {}};
  return info;
}

}  // namespace mixerlab
