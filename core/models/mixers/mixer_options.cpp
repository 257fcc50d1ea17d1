// Parsing and cross-checks of the masked mixer's variant options (see mixer_options.h).
#include "core/models/mixers/mixer_options.h"

#include "core/util/error.h"

namespace mixerlab {

TokenConvSettings MixerOptions::tokenConv() const {
  TokenConvSettings s;
  s.weights = mixing_weights == "softmax"          ? MixWeights::kSoftmax
              : mixing_weights == "softmax_compat" ? MixWeights::kSoftmaxCompat
                                                   : MixWeights::kMasked;
  s.inplace_mask = mask_mode == "inplace_compat";
  return s;
}

MixerOptions readMixerOptions(JsonFields& f) {
  MixerOptions o;
  o.mixing = f.choice("mixing", o.mixing, {"flat", "expanded", "multi_head"});
  o.expansion = f.integer("expansion", o.expansion, 1, 16);
  o.expanded_bias = f.boolean("expanded_bias", o.expanded_bias);
  o.mixing_heads = f.integer("mixing_heads", o.mixing_heads, 1, 1024);
  o.mixing_weights = f.choice("mixing_weights", o.mixing_weights, {"masked", "softmax", "softmax_compat"});
  o.mask_mode = f.choice("mask_mode", o.mask_mode, {"graph", "inplace_compat"});
  o.layer_norms = f.boolean("layer_norms", o.layer_norms);
  o.feed_forward = f.choice("feed_forward", o.feed_forward, {"gelu", "linear", "none"});
  o.residual = f.boolean("residual", o.residual);
  o.head_activation = f.choice("head_activation", o.head_activation, {"none", "relu"});
  o.ff_dropout = f.number("ff_dropout", o.ff_dropout, 0.0, 0.9);
  return o;
}

MixerOptions mixerOptions(const ModelConfig& c) {
  JsonFields f(c.options.is_null() ? nlohmann::json::object() : c.options, "", "options");
  auto o = readMixerOptions(f);
  f.rejectUnknownKeys();
  return o;
}

void checkMixerOptionCombinations(const ModelConfig& c, const MixerOptions& o, std::vector<std::string>& problems) {
  const std::string k = std::to_string(c.kernel_size);
  if (o.mixing == "expanded" && c.kernel_size != 1) {
    problems.push_back("options.mixing: \"expanded\" supports kernel_size 1 only, got kernel_size " + k +
                       " (use mixing \"flat\" or \"multi_head\" for k > 1)");
  }
  if (o.mixing == "expanded" && o.mixing_weights != "masked") {
    problems.push_back("options.mixing_weights: \"" + o.mixing_weights +
                       "\" applies to square token convs (mixing \"flat\" or \"multi_head\"), not \"expanded\"");
  }
  if (o.mixing_weights != "masked" && c.kernel_size != 1) {
    problems.push_back("options.mixing_weights: \"" + o.mixing_weights + "\" supports kernel_size 1 only, got " + k);
  }
  if (o.mixing_weights != "masked" && o.mask_mode != "graph") {
    problems.push_back("options.mask_mode: \"inplace_compat\" applies to mixing_weights \"masked\" only "
                       "(softmax_compat already rewrites the weights in place)");
  }
  if (o.mixing == "multi_head" && c.d_model > 0 && (o.mixing_heads > c.d_model || c.d_model % o.mixing_heads != 0)) {
    problems.push_back("options.mixing_heads: d_model " + std::to_string(c.d_model) + " must be divisible by " +
                       std::to_string(o.mixing_heads) + " heads");
  }
}

}  // namespace mixerlab
