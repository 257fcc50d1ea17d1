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

const FieldSet<MixerOptions>& mixerOptionFields() {
  static const auto fields =
      FieldSet<MixerOptions>()
          .group("Token mixing")
          .choice("mixing", &MixerOptions::mixing, {"flat", "expanded", "multi_head"}, "Token mixing",
                  "flat: one masked Conv1d(T,T,k); expanded: Conv1d(T,eT,1) -> GELU -> Conv1d(eT,T,1), each "
                  "tril-masked; multi_head: per-head projection, masked conv, concat, output projection")
          .integer("expansion", &MixerOptions::expansion, 1, 16, "Expansion (e)",
                   "intermediate token channels e x T for mixing = expanded (Table S2)")
          .boolean("expanded_bias", &MixerOptions::expanded_bias, "Expanded conv biases",
                   "biases on the expanded convs (the research src/ variant has none)")
          .integer("mixing_heads", &MixerOptions::mixing_heads, 1, 1024, "Mixing heads",
                   "heads for mixing = multi_head; must divide d_model")
          .boolean("multi_head_compat", &MixerOptions::multi_head_compat, "Paper-era multi-head bug",
                   "multi_head as the paper-era code ran it (Table S5 \"2 heads\"): every head applies the LAST "
                   "head's conv to the unprojected input, the projections are unused and out_proj is "
                   "Linear(H*D -> D); false: the intended design (docs/fidelity.md)")
          .choice("mixing_weights", &MixerOptions::mixing_weights, {"masked", "softmax", "softmax_compat"},
                  "Mixing weights",
                  "softmax: row i is a softmax over j <= i (in the graph); softmax_compat: the paper run's in-place "
                  "W <- tril(softmax(tril(W))) every forward (docs/fidelity.md)")
          .choice("mask_mode", &MixerOptions::mask_mode, {"graph", "inplace_compat"}, "Mask mode",
                  "inplace_compat: overwrite the stored weight with its masked form each forward, so masked entries "
                  "get gradients that count in clipping (docs/fidelity.md)")
          .group("Ablations")
          .boolean("layer_norms", &MixerOptions::layer_norms, "LayerNorms", "false: no LayerNorms (NearLinearMixer)")
          .choice("feed_forward", &MixerOptions::feed_forward, {"gelu", "linear", "none"}, "Feed-forward",
                  "linear: two Linears without GELU; none: no feed-forward sublayer")
          .boolean("residual", &MixerOptions::residual, "Residual adds",
                   "false drops the residual adds; with no norms, no feed-forward and N=1 the model is "
                   "lm_head(conv(wte[x]))")
          .choice("head_activation", &MixerOptions::head_activation, {"none", "relu"}, "Head activation",
                  "relu: ReLU before the head (LinearMixer)")
          .number("ff_dropout", &MixerOptions::ff_dropout, 0.0, 0.9, "Feed-forward dropout",
                  "dropout after the first feed-forward Linear, before GELU; paper-era autoencoders used 0.05")
          .group("Initialisation")
          .number("embedding_init_std", &MixerOptions::embedding_init_std, 0.0, 10.0, "Embedding init std",
                  "token embedding drawn from N(0, std); 0 = the research's init (N(0, 1), or U(+-1/sqrt(D)) when "
                  "tied). Representation inversion depends on this scale (paper 2.3)");
  return fields;
}

MixerOptions readMixerOptions(JsonFields& f) {
  MixerOptions o;
  mixerOptionFields().readInto(f, o);
  return o;
}

MixerOptions mixerOptions(const ModelConfig& c) { return mixerOptionFields().read(c.options, "", "options"); }

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
    problems.push_back(
        "options.mask_mode: \"inplace_compat\" applies to mixing_weights \"masked\" only "
        "(softmax_compat already rewrites the weights in place)");
  }
  if (o.multi_head_compat && o.mixing != "multi_head") {
    problems.push_back("options.multi_head_compat: applies to mixing \"multi_head\", not \"" + o.mixing + "\"");
  }
  if (o.mixing == "multi_head" && c.d_model > 0 && (o.mixing_heads > c.d_model || c.d_model % o.mixing_heads != 0)) {
    problems.push_back("options.mixing_heads: d_model " + std::to_string(c.d_model) + " must be divisible by " +
                       std::to_string(o.mixing_heads) + " heads");
  }
}

}  // namespace mixerlab
