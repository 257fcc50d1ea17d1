// The architecture registry (see model_registry.h). Family entries are defined in their own
// *_family.cpp files and listed here.
#include "core/models/model_registry.h"

#include "core/models/families.h"
#include "core/util/error.h"

namespace mixerlab {

const std::vector<ArchitectureInfo>& architectures() {
  static const std::vector<ArchitectureInfo> all = {maskedMixerFamily(), llamaFamily()};
  return all;
}

std::string architectureNames() {
  std::string names;
  for (const auto& a : architectures()) names += (names.empty() ? "" : ", ") + a.name;
  return names;
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
  if (!problems.empty()) {
    std::string all;
    for (const auto& p : problems) all += (all.empty() ? "" : "; ") + p;
    throw MixerLabError("invalid " + config.arch + " model: " + all);
  }
  return arch.build(config);
}

ModelCost estimateCost(const ModelConfig& config, int64_t batch_size) {
  return findArchitecture(config.arch).cost(config, batch_size);
}

}  // namespace mixerlab
