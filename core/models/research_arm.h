// The sides the research's comparisons set against each other: the masked mixer, the Llama-style
// transformer, the GPT-style transformer, the attention-then-conv Transfixer, the two autoencoders
// and the two bidirectional models. The registry marks one family as each arm's representative
// (ArchitectureInfo::research_arm; researchArmArchitecture in model_registry.h): the reproduction's
// runs and a new project's first run take their architecture from there, so no family name is
// written outside core/models.
#pragma once
#include <array>
#include <string>

namespace mixerlab {

enum class ResearchArm {
  kMixer,
  kTransformer,
  kGpt,
  kTransfixer,
  kMixerAutoencoder,
  kTransformerAutoencoder,
  kBidirectionalMixer,
  kBidirectionalTransformer
};
inline constexpr std::array<ResearchArm, 8> kResearchArms{ResearchArm::kMixer,
                                                          ResearchArm::kTransformer,
                                                          ResearchArm::kGpt,
                                                          ResearchArm::kTransfixer,
                                                          ResearchArm::kMixerAutoencoder,
                                                          ResearchArm::kTransformerAutoencoder,
                                                          ResearchArm::kBidirectionalMixer,
                                                          ResearchArm::kBidirectionalTransformer};

// "mixer", "transformer" (Llama), "gpt", ...: the word plan files and reports use.
std::string researchArmName(ResearchArm arm);
// The arm named `name`; throws MixerLabError listing the words otherwise.
ResearchArm researchArmFromName(const std::string& name);
// Every arm's word, comma separated.
std::string researchArmNames();

}  // namespace mixerlab
