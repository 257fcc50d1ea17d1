// The architecture registry: each model family registers its name, a builder, a validator for its
// config and its analytic cost. Project files, the CLI and the GUI only ever go through here, so a
// new family is one new entry.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "core/models/language_model.h"
#include "core/models/model_cost.h"

namespace mixerlab {

struct ArchitectureInfo {
  std::string name;
  std::string description;
  std::function<LanguageModelPtr(const ModelConfig&)> build;
  // Appends "field: problem (expected ...)" messages for invalid settings.
  std::function<void(const ModelConfig&, std::vector<std::string>& problems)> validate;
  std::function<ModelCost(const ModelConfig&, int64_t batch_size)> cost;
};

const std::vector<ArchitectureInfo>& architectures();
// Throws MixerLabError listing the known names when `name` is unknown.
const ArchitectureInfo& findArchitecture(const std::string& name);
std::string architectureNames();  // "masked_mixer, llama"

// Validates (throwing MixerLabError with every problem) and builds.
LanguageModelPtr buildModel(const ModelConfig& config);
ModelCost estimateCost(const ModelConfig& config, int64_t batch_size);

}  // namespace mixerlab
