// Registry entry of the masked mixer (flat by default; variants via options, see mixer_options.h):
// builder, validation and analytic cost.
#include <string>

#include "core/models/families.h"
#include "core/models/mixers/masked_mixer.h"

namespace mixerlab {
namespace {

// Parameters of one block's token-mixing module.
int64_t mixingParameters(const ModelConfig& c, const MixerOptions& o) {
  const int64_t D = c.d_model, T = c.context_length, k = c.kernel_size;
  if (o.mixing == "expanded") {
    const int64_t hidden = o.expansion * T;
    return 2 * hidden * T + (o.expanded_bias ? hidden + T : 0);
  }
  if (o.mixing == "multi_head") {
    const int64_t H = o.mixing_heads;
    const int64_t out_in = o.multi_head_compat ? H * D : D;  // compat: out_proj reads H copies of D
    return H * (D * (D / H) + D / H) + H * (T * T * k + T) + out_in * D + D;
  }
  return T * T * k + T;
}

// Forward FLOPs/token of the token mixing (dense products, masked zeros included).
double mixingFlops(const ModelConfig& c, const MixerOptions& o) {
  const double D = c.d_model, T = c.context_length, k = c.kernel_size;
  if (o.mixing == "expanded") return 4.0 * o.expansion * T * D;  // [eT,T] then [T,eT] per feature column
  if (o.mixing == "multi_head" && o.multi_head_compat) {
    return 2.0 * D * D + 2.0 * T * D * k + 2.0 * o.mixing_heads * D * D;  // unused proj, one conv, wide out_proj
  }
  if (o.mixing == "multi_head") return 2.0 * D * D + 2.0 * T * D * k + 2.0 * D * D;  // proj, convs, out_proj
  return 2.0 * T * D * k;
}

}  // namespace

ArchitectureInfo maskedMixerFamily() {
  ArchitectureInfo info;
  info.name = "masked_mixer";
  info.description =
      "Masked mixer: causal token-mixing Conv1d(T,T,k) + 4x GELU feed-forward, no attention "
      "(options: expanded / multi-head mixing, softmax weights, linear ablations)";
  info.model_keys = {"ff_mult", "kernel_size", "tie_weights", "objective", "mtp_tokens"};
  info.options = mixerOptionFields().specs();
  info.build = [](const ModelConfig& c) { return std::make_shared<MaskedMixer>(c); };
  info.validate = [](const ModelConfig& c, std::vector<std::string>& problems) {
    validateCommonSizes(c, problems);
    if (c.kernel_size < 1) problems.push_back("kernel_size: must be >= 1, got " + std::to_string(c.kernel_size));
    MixerOptions o;
    bool read = false;
    const size_t before = problems.size();
    validateOptions(c, problems, [&](JsonFields& f) {
      o = readMixerOptions(f);
      read = true;
    });
    if (read && problems.size() == before) checkMixerOptionCombinations(c, o, problems);
  };
  info.cost = [](const ModelConfig& c, int64_t batch_size) {
    const MixerOptions o = mixerOptions(c);
    ModelCost cost;
    cost.batch_size = batch_size;
    const double D = c.d_model, m = c.ff_mult;
    const double tokens = static_cast<double>(batch_size) * c.context_length;
    const bool ff = o.feed_forward != "none";
    const int64_t norms = o.layer_norms ? (ff ? 2 : 1) : 0;
    for (int64_t i = 0; i < c.n_layers; ++i) {
      LayerCost block;
      block.name = "mixerblocks." + std::to_string(i);
      block.parameters = norms * 2 * c.d_model + mixingParameters(c, o) +
                         (ff ? 2 * c.ff_mult * c.d_model * c.d_model + c.ff_mult * c.d_model + c.d_model : 0);
      block.forward_flops_per_token = mixingFlops(c, o) + (ff ? 4.0 * m * D * D : 0.0);
      // LN inputs/outputs (2D per norm), FF hidden before and after its activation (2mD), mixing
      // intermediates (expanded: eT channels before/after GELU per feature column; heads: D/H x H x 2).
      double per_token = 2.0 * D * norms + (ff ? 2.0 * m * D : 0.0);
      if (o.mixing == "expanded") per_token += 2.0 * o.expansion * D;
      if (o.mixing == "multi_head") per_token += 3.0 * D;
      block.activation_bytes = tokens * per_token * 4.0;
      cost.layers.push_back(block);
    }
    finishCost(c, cost, c.tie_weights ? 0 : c.vocab_size * c.d_model,
               "Mixer block: token mix (flat 2*T*D*k; expanded 4*e*T*D; multi-head 4*D^2 + 2*T*D*k; dense, the "
               "masked zeros included) + 4*ff_mult*D^2 (feed-forward, when present) FLOPs/token.");
    return cost;
  };
  info.embedding_position_from_end = 1;  // the research's retrieval read the mixer one token before the last
  info.aliases = {"mixer"};
  info.research_arm = ResearchArm::kMixer;
  info.generation = GenerationSupport{ContextPolicy::kStopAtWindowEnd, FastDecoder::kCachedMixer, {}, {}};
  return info;
}

}  // namespace mixerlab
