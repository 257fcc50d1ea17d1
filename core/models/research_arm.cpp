// Research arms and their representative families (see research_arm.h).
#include "core/models/research_arm.h"

#include "core/models/model_registry.h"
#include "core/util/error.h"

namespace mixerlab {

std::string researchArmName(ResearchArm arm) { return arm == ResearchArm::kMixer ? "mixer" : "transformer"; }

ResearchArm researchArmFromName(const std::string& name) {
  for (const ResearchArm arm : kResearchArms) {
    if (researchArmName(arm) == name) return arm;
  }
  throw MixerLabError("unknown research arm \"" + name + "\"", "use mixer or transformer");
}

std::string researchArmArchitecture(ResearchArm arm) {
  for (const auto& family : architectures()) {
    if (family.research_arm == arm) return family.name;
  }
  throw MixerLabError("no family represents the " + researchArmName(arm) + " arm",
                      "mark one family's registry entry with research_arm");
}

}  // namespace mixerlab
