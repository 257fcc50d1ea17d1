// Registry entry of the Mamba-style selective state-space model: builder, option validation and
// analytic cost (parameters exact; FLOPs and activation memory by the formulas stated below).
#include <string>

#include "core/models/families.h"
#include "core/models/state_space/mamba.h"
#include "core/models/state_space/mamba_step.h"

namespace mixerlab {

namespace {
// Exact parameters of one block: norm D; in_proj 2ED; conv1d E*d_conv + E; x_proj E(R + 2N);
// dt_proj RE + E; A_log EN; D E; out_proj ED.
int64_t blockParameters(int64_t d, const MambaOptions& o) {
  const int64_t E = o.expand * d, N = o.d_state, R = o.dt_rank;
  return d + 2 * E * d + E * o.d_conv + E + E * (R + 2 * N) + R * E + E + E * N + E + E * d;
}
}  // namespace

ArchitectureInfo mambaFamily() {
  ArchitectureInfo info;
  info.name = "mamba";
  info.description =
      "Mamba-style selective SSM: RMSNorm + (in_proj, causal depthwise conv, input-dependent dt/B/C, diagonal A, "
      "selective scan, SiLU gate, out_proj), no attention";
  info.model_keys = {"tie_weights", "objective", "mtp_tokens"};
  info.options = mambaOptionFields().specs();
  info.build = [](const ModelConfig& c) { return std::make_shared<MambaModel>(c); };
  info.validate = [](const ModelConfig& c, std::vector<std::string>& problems) {
    validateCommonSizes(c, problems);
    validateOptions(c, problems, [](JsonFields& f) { readMambaOptions(f); });
  };
  info.cost = [](const ModelConfig& c, int64_t batch_size) {
    const MambaOptions o = mambaOptions(c);
    ModelCost cost;
    cost.batch_size = batch_size;
    const double D = c.d_model, E = static_cast<double>(o.expand) * D, N = o.d_state, R = o.dt_rank, K = o.d_conv;
    const double tokens = static_cast<double>(batch_size) * c.context_length;
    for (int64_t i = 0; i < c.n_layers; ++i) {
      LayerCost layer;
      layer.name = "backbone.layers." + std::to_string(i);
      layer.parameters = blockParameters(c.d_model, o);
      layer.forward_flops_per_token =
          2.0 * D * 2.0 * E + 2.0 * E * (R + 2.0 * N) + 2.0 * R * E + 2.0 * E * D + 2.0 * E * K + 6.0 * E * N;
      // norm in/out (2D), in_proj out (2E), conv out and SiLU (2E), x_proj out (R+2N), dt before and
      // after softplus (2E), y, SiLU(z), gated y (3E). The tensor-op scans add dt*A, dt*B*u and h (3EN); the fused scan
      // keeps only its inputs and recomputes h in the backward (on CPU; elsewhere it runs the parallel scan).
      const double scan_per_token = o.scan == "fused" ? 0.0 : 3.0 * E * N;
      layer.activation_bytes = tokens * (2.0 * D + 9.0 * E + R + 2.0 * N + scan_per_token) * 4.0;
      cost.layers.push_back(layer);
    }
    LayerCost final_norm{"backbone.norm_f", c.d_model, 0.0, tokens * D * 4.0};
    cost.layers.push_back(final_norm);
    finishCost(c, cost, c.tie_weights ? 0 : c.vocab_size * c.d_model,
               "Mamba block (E = expand*D, N = d_state, R = dt_rank, K = d_conv): 2*D*2E (in_proj) + "
               "2*E*(R+2N) (x_proj) + 2*R*E (dt_proj) + 2*E*D (out_proj) + 2*E*K (causal depthwise conv) + "
               "6*E*N (selective scan: dt*B*u, the recurrence multiply-add and C.h, 2 each; exp and gating "
               "not counted) FLOPs/token; the parallel scan mode does about 2x the recurrence work of the "
               "sequential loop. Activations add 3*E*N per token for the tensor-op scans (the parallel scan "
               "keeps roughly twice that across its levels) and nothing for the fused CPU scan, which "
               "recomputes the states in its backward.");
    return cost;
  };
  info.generation = GenerationSupport{ContextPolicy::kUnbounded, FastDecoder::kRecurrent, {}, makeMambaRecurrentStack};
  return info;
}

}  // namespace mixerlab
