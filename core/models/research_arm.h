// The two sides every claim of the research compares, the masked mixer against the transformer,
// and the family the registry marks as each side's representative (ArchitectureInfo::research_arm).
// The reproduction's arms and a new project's first run take their architecture from here, so no
// family name is written outside core/models.
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
// The registry name of the family that represents `arm` (exactly one per arm; checked by the tests).
std::string researchArmArchitecture(ResearchArm arm);

}  // namespace mixerlab
