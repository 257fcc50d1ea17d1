// JSON (de)serialisation of ModelConfig; validation with field-level messages lives in config/.
#include "core/models/model_config.h"

namespace mixerlab {

nlohmann::json ModelConfig::toJson() const {
  return {{"arch", arch},           {"vocab_size", vocab_size},   {"d_model", d_model},
          {"n_layers", n_layers},   {"context_length", context_length}, {"n_heads", n_heads},
          {"ff_mult", ff_mult},     {"kernel_size", kernel_size}, {"tie_weights", tie_weights},
          {"rope_theta", rope_theta}, {"norm_eps", norm_eps},     {"objective", objective},
          {"mtp_tokens", mtp_tokens}, {"options", options}};
}

ModelConfig ModelConfig::fromJson(const nlohmann::json& j) {
  ModelConfig c;
  c.arch = j.value("arch", c.arch);
  c.vocab_size = j.value("vocab_size", c.vocab_size);
  c.d_model = j.value("d_model", c.d_model);
  c.n_layers = j.value("n_layers", c.n_layers);
  c.context_length = j.value("context_length", c.context_length);
  c.n_heads = j.value("n_heads", c.n_heads);
  c.ff_mult = j.value("ff_mult", c.ff_mult);
  c.kernel_size = j.value("kernel_size", c.kernel_size);
  c.tie_weights = j.value("tie_weights", c.tie_weights);
  c.rope_theta = j.value("rope_theta", c.rope_theta);
  c.norm_eps = j.value("norm_eps", c.norm_eps);
  c.objective = j.value("objective", c.objective);
  c.mtp_tokens = j.value("mtp_tokens", c.mtp_tokens);
  if (j.contains("options")) c.options = j.at("options");
  return c;
}

}  // namespace mixerlab
