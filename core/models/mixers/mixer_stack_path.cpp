// The choice of the flat mixer's block-stack path (see mixer_stack_path.h).
#include "core/models/mixers/mixer_stack_path.h"

#include "kernels/environment_choice.h"
#include "kernels/masked_token_mix.h"

namespace mixerlab {

namespace {
std::optional<MixerStackPath> environmentPath() {
  static const std::optional<MixerStackPath> path = kernels::environmentChoice<MixerStackPath>(
      "MIXERLAB_MIXER_STACK", parseMixerStackPath, "modules, token_major or fused (unset it for the automatic choice)");
  return path;
}

std::optional<MixerStackPath>& testOverride() {
  static std::optional<MixerStackPath> path;
  return path;
}
}  // namespace

std::optional<MixerStackPath> parseMixerStackPath(const std::string& name) {
  if (name == "modules") return MixerStackPath::kModules;
  if (name == "token_major") return MixerStackPath::kTokenMajor;
  if (name == "fused") return MixerStackPath::kFused;
  return std::nullopt;
}

std::string mixerStackPathName(MixerStackPath path) {
  switch (path) {
    case MixerStackPath::kModules:
      return "modules";
    case MixerStackPath::kTokenMajor:
      return "token_major";
    case MixerStackPath::kFused:
      return "fused";
  }
  return "modules";
}

std::optional<MixerStackPath> mixerStackOverride() { return testOverride() ? testOverride() : environmentPath(); }
void setMixerStackOverride(std::optional<MixerStackPath> path) { testOverride() = path; }

MixerStackPath preferredMixerStackPath(const at::Tensor& reference) {
  if (const auto forced = mixerStackOverride()) return *forced;
  if (reference.is_cuda() && !kernels::customCausalOpPreferred(reference)) return MixerStackPath::kFused;
  return MixerStackPath::kModules;
}

}  // namespace mixerlab
