// Architecture configuration shared by every model family. Family-specific options that later
// families add live in `options` (validated by the family's registry entry).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace mixerlab {

// Training objective wrapped around the family (docs/architectures.md): plain causal LM,
// multi-token prediction (mtp_tokens passes, each on the argmax of the previous) or one-step
// completion (zero positions >= T/2 after the middle layer, unshifted loss on them).
enum class ModelObjective { kNextToken, kMultiToken, kOneStepCompletion };
// The names project files use, indexed by the enumerator: "next_token", "multi_token", "one_step_completion".
const std::vector<std::string>& modelObjectiveNames();
std::string modelObjectiveName(ModelObjective objective);
ModelObjective parseModelObjective(const std::string& name);  // throws MixerLabError listing the names

// How transformer families compute attention (core/models/transformers/causal_attention.h): fused
// scaled_dot_product_attention, or eager with the [B, H, T, T] scores materialised.
enum class AttentionImpl { kSdpa, kEager };
// Indexed by the enumerator: "sdpa", "eager".
const std::vector<std::string>& attentionImplNames();
std::string attentionImplName(AttentionImpl impl);

struct ModelConfig {
  std::string arch = "masked_mixer";  // registry name: "masked_mixer", "llama", ...
  int64_t vocab_size = 4096;
  int64_t d_model = 256;
  int64_t n_layers = 8;
  int64_t context_length = 512;  // T: fixed for mixers (token-mixing weights are [T,T]); max length for transformers
  int64_t n_heads = 4;           // attention heads (transformers)
  int64_t ff_mult = 4;           // feed-forward expansion factor
  int64_t kernel_size = 1;       // token-mixing conv kernel size (mixers)
  bool tie_weights = false;      // share the embedding with the LM head
  double rope_theta = 10000.0;   // transformers with rotary positions
  double norm_eps = -1.0;        // <0: the family's default (LayerNorm 1e-5, RMSNorm 1e-6)
  ModelObjective objective = ModelObjective::kNextToken;
  int64_t mtp_tokens = 2;
  AttentionImpl attention = AttentionImpl::kSdpa;  // transformer families
  nlohmann::json options = nlohmann::json::object();

  nlohmann::json toJson() const;
  static ModelConfig fromJson(const nlohmann::json& j);  // no validation: see config/ for that
};

}  // namespace mixerlab
