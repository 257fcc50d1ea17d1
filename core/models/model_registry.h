// The architecture registry: each model family registers its name, a builder, a validator for its
// config and its analytic cost. Project files, the CLI and the GUI only ever go through here, so a
// new family is one new entry.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/models/generation_support.h"
#include "core/models/language_model.h"
#include "core/models/model_cost.h"
#include "core/models/research_arm.h"
#include "core/util/field_spec.h"

namespace mixerlab {

struct ArchitectureInfo {
  std::string name;
  std::string description;
  // ModelConfig keys this family reads beyond the ones every family reads (model_fields.h marks
  // those keys familySpecific); the form shows such a key only for the families that list it.
  std::vector<std::string> model_keys;
  // The keys of run.model.options, from the family's FieldSet: the parser, `mixerlab config
  // schema`, the run form and the docs all list these.
  std::vector<FieldSpec> options;
  std::function<LanguageModelPtr(const ModelConfig&)> build;
  // Appends "field: problem (expected ...)" messages for invalid settings.
  std::function<void(const ModelConfig&, std::vector<std::string>& problems)> validate;
  std::function<ModelCost(const ModelConfig&, int64_t batch_size)> cost;
  // How it generates (window end, fast decoder, one-token step); nullopt: it does not generate.
  std::optional<GenerationSupport> generation;
  // Retrieval's default embedding position, counted back from the last real token (text_embeddings.h).
  int64_t embedding_position_from_end = 0;
  // Shorter names the benchmark commands accept for it ("mixer").
  std::vector<std::string> aliases;
  // The side of the research's comparisons this family stands for (research_arm.h); at most one
  // family per arm.
  std::optional<ResearchArm> research_arm;
};

const std::vector<ArchitectureInfo>& architectures();
// Throws MixerLabError listing the known names when `name` is unknown.
const ArchitectureInfo& findArchitecture(const std::string& name);
// Whether the family reads the familySpecific model key (ArchitectureInfo::model_keys).
bool familyReadsModelKey(const std::string& arch, const std::string& key);
std::string architectureNames();                     // "masked_mixer, llama"
std::vector<std::string> generatingArchitectures();  // the families with a GenerationSupport, in registry order
std::string generatingArchitectureNames();           // the same joined: "masked_mixer, llama, ..."
// The registry name of `name` or of the family that lists it as an alias; `name` itself otherwise.
std::string canonicalArchitectureName(const std::string& name);
// The registry name of the family that represents `arm` (exactly one per arm; checked by the tests).
std::string researchArmArchitecture(ResearchArm arm);

// Validates (throwing MixerLabError with every problem) and builds.
LanguageModelPtr buildModel(const ModelConfig& config);
ModelCost estimateCost(const ModelConfig& config, int64_t batch_size);

}  // namespace mixerlab
