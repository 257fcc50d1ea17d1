// The masked mixer's variant options (ModelConfig::options of arch "masked_mixer"): token-mixing
// layout (flat / expanded / multi-head, docs/architectures.md), weight transform (masked / softmax),
// masking mechanics (in-graph or the research code's in-place overwrite, docs/architectures.md) and the
// linear / near-linear ablations (docs/architectures.md). Defaults reproduce the flat paper mixer.
#pragma once
#include <string>
#include <vector>

#include "core/models/model_config.h"
#include "core/util/field_set.h"
#include "core/util/json_fields.h"
#include "kernels/masked_token_mix.h"

namespace mixerlab {

// How a square token-mixing conv turns its parameter into the weight it applies.
enum class MixWeights {
  kMasked,         // tril(W) (or the conv's mask kind)
  kSoftmax,        // clean: row i = softmax over j <= i of W[i, j] (-inf above the diagonal), in the graph
  kSoftmaxCompat,  // research coding (1): W <- tril(softmax over output tokens of tril(W)), in place, every forward
};

struct TokenConvSettings {
  kernels::TokenMask mask = kernels::TokenMask::kCausal;
  MixWeights weights = MixWeights::kMasked;
  // Research mechanics: overwrite the stored weight with its masked form at every forward and run
  // the plain product, so masked entries receive (non-zero) gradients that enter grad-norm clipping.
  bool inplace_mask = false;
};

struct MixerOptions {
  std::string mixing = "flat";  // flat | expanded | multi_head
  int64_t expansion = 2;        // expanded: intermediate token channels = expansion * T
  bool expanded_bias = true;
  int64_t mixing_heads = 4;        // multi_head: number of heads (d_model divisible)
  bool multi_head_compat = false;  // multi_head: the paper-era loop bug (docs/architectures.md, docs/fidelity.md)
  std::string mixing_weights = "masked";  // masked | softmax | softmax_compat
  std::string mask_mode = "graph";        // graph | inplace_compat
  bool layer_norms = true;
  std::string feed_forward = "gelu";  // gelu | linear | none
  bool residual = true;
  std::string head_activation = "none";  // none | relu
  double ff_dropout = 0.0;  // dropout after the first feed-forward Linear, before GELU (paper-era autoencoders: 0.05)
  // Token embedding drawn from N(0, std); 0 keeps the research's init (nn.Embedding's N(0, 1), or the
  // tied head's uniform). Inversion depends on this scale (paper 2.3), so the reproduction varies it.
  double embedding_init_std = 0.0;

  TokenConvSettings tokenConv() const;
};

// The option fields (key, bounds or choices, help): the one declaration behind the parser, the
// schema, the GUI form and the docs. Defaults are MixerOptions' member initialisers.
const FieldSet<MixerOptions>& mixerOptionFields();
// Reads every key through `f` (unknown keys are rejected by the caller).
MixerOptions readMixerOptions(JsonFields& f);
// The options of a (validated) config; throws MixerLabError on bad options.
MixerOptions mixerOptions(const ModelConfig& c);
// Problems with combinations the single-key checks cannot see (e.g. expanded with kernel_size > 1).
void checkMixerOptionCombinations(const ModelConfig& c, const MixerOptions& o, std::vector<std::string>& problems);

}  // namespace mixerlab
