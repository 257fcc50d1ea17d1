// The research arms' names (see research_arm.h).
#include "core/models/research_arm.h"

#include "core/util/error.h"

namespace mixerlab {

std::string researchArmName(ResearchArm arm) { return arm == ResearchArm::kMixer ? "mixer" : "transformer"; }

ResearchArm researchArmFromName(const std::string& name) {
  for (const ResearchArm arm : kResearchArms) {
    if (researchArmName(arm) == name) return arm;
  }
  throw MixerLabError("unknown research arm \"" + name + "\"", "use mixer or transformer");
}

}  // namespace mixerlab
