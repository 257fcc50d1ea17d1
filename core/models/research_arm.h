// The two sides every claim of the research compares, the masked mixer against the transformer. The
// registry marks one family as each side's representative (ArchitectureInfo::research_arm;
// researchArmArchitecture in model_registry.h): the reproduction's arms and a new project's first
// run take their architecture from there, so no family name is written outside core/models.
#pragma once
#include <array>
#include <string>

namespace mixerlab {

enum class ResearchArm { kMixer, kTransformer };
inline constexpr std::array<ResearchArm, 2> kResearchArms{ResearchArm::kMixer, ResearchArm::kTransformer};

// "mixer", "transformer": the word plan files and reports use.
std::string researchArmName(ResearchArm arm);
// The arm named `name`; throws MixerLabError naming both words otherwise.
ResearchArm researchArmFromName(const std::string& name);

}  // namespace mixerlab
