// The research arms' names (see research_arm.h).
#include "core/models/research_arm.h"

#include "core/util/enum_names.h"
#include "core/util/error.h"

namespace mixerlab {

namespace {
constexpr EnumName<ResearchArm> kArmNames[] = {{ResearchArm::kMixer, "mixer"},
                                               {ResearchArm::kTransformer, "transformer"},
                                               {ResearchArm::kGpt, "gpt"},
                                               {ResearchArm::kTransfixer, "transfixer"},
                                               {ResearchArm::kMixerAutoencoder, "mixer_autoencoder"},
                                               {ResearchArm::kTransformerAutoencoder, "transformer_autoencoder"},
                                               {ResearchArm::kBidirectionalMixer, "bidirectional_mixer"},
                                               {ResearchArm::kBidirectionalTransformer, "bidirectional_transformer"}};
}  // namespace

std::string researchArmName(ResearchArm arm) { return enumName(kArmNames, arm, "mixer"); }

std::string researchArmNames() {
  std::string names;
  for (const ResearchArm arm : kResearchArms) names += (names.empty() ? "" : ", ") + researchArmName(arm);
  return names;
}

ResearchArm researchArmFromName(const std::string& name) {
  if (const auto arm = enumFromName(kArmNames, name)) return *arm;
  throw MixerLabError("unknown research arm \"" + name + "\"", "use one of: " + researchArmNames());
}

}  // namespace mixerlab
