// The architecture registry (see model_registry.h). Family entries are defined in their own
// *_family.cpp files and listed here.
#include "core/models/model_registry.h"

#include <algorithm>

#include "core/models/families.h"
#include "core/models/objectives.h"
#include "core/util/error.h"

namespace mixerlab {

const std::vector<ArchitectureInfo>& architectures() {
  static const std::vector<ArchitectureInfo> all = {maskedMixerFamily(),
                                                    llamaFamily(),
                                                    bidirectionalMixerFamily(),
                                                    mixerAutoencoderFamily(),
                                                    transformerAutoencoderFamily(),
                                                    mambaFamily(),
                                                    gptFamily(),
                                                    transfixerFamily(),
                                                    bidirectionalTransformerFamily()};
  return all;
}

bool familyReadsModelKey(const std::string& arch, const std::string& key) {
  const auto& keys = findArchitecture(arch).model_keys;
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

std::string architectureNames() {
  std::string names;
  for (const auto& a : architectures()) names += (names.empty() ? "" : ", ") + a.name;
  return names;
}

std::vector<std::string> generatingArchitectures() {
  std::vector<std::string> names;
  for (const auto& a : architectures()) {
    if (a.generation) names.push_back(a.name);
  }
  return names;
}

std::string generatingArchitectureNames() {
  std::string names;
  for (const auto& name : generatingArchitectures()) names += (names.empty() ? "" : ", ") + name;
  return names;
}

std::string canonicalArchitectureName(const std::string& name) {
  for (const auto& a : architectures()) {
    if (a.name == name || std::find(a.aliases.begin(), a.aliases.end(), name) != a.aliases.end()) return a.name;
  }
  return name;
}

std::string researchArmArchitecture(ResearchArm arm) {
  for (const auto& family : architectures()) {
    if (family.research_arm == arm) return family.name;
  }
  throw MixerLabError("no family represents the " + researchArmName(arm) + " arm",
                      "mark one family's registry entry with research_arm");
}

std::string fastDecoderKindName(FastDecoder decoder) {
  switch (decoder) {
    case FastDecoder::kCachedMixer:
      return "cached-mixer";
    case FastDecoder::kRecurrent:
      return "recurrent";
    case FastDecoder::kReference:
      return "reference";
    case FastDecoder::kKvCache:
      break;
  }
  return "kv-cache";
}

const ArchitectureInfo& findArchitecture(const std::string& name) {
  for (const auto& a : architectures()) {
    if (a.name == name) return a;
  }
  throw MixerLabError("unknown architecture \"" + name + "\"", "use one of: " + architectureNames());
}

LanguageModelPtr buildModel(const ModelConfig& config) {
  const auto& arch = findArchitecture(config.arch);
  std::vector<std::string> problems;
  arch.validate(config, problems);
  validateObjective(config, problems);
  if (!problems.empty()) {
    std::string all;
    for (const auto& p : problems) all += (all.empty() ? "" : "; ") + p;
    throw MixerLabError("invalid " + config.arch + " model: " + all);
  }
  return applyObjective(arch.build(config));
}

ModelCost estimateCost(const ModelConfig& config, int64_t batch_size) {
  ModelCost cost = findArchitecture(config.arch).cost(config, batch_size);
  if (config.objective == ModelObjective::kMultiToken) {
    // Every training step runs mtp_tokens forward passes (and their backward) through the model.
    cost.training_flops_per_token *= static_cast<double>(config.mtp_tokens);
    cost.activation_bytes *= static_cast<double>(config.mtp_tokens);
    cost.formula += " multi_token: training FLOPs and activations x mtp_tokens (one pass per predicted token).";
  }
  return cost;
}

}  // namespace mixerlab
