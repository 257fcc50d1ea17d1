// The choice of the flat mixer's block-stack path (see mixer_stack_path.h).
#include "core/models/mixers/mixer_stack_path.h"

#include "kernels/masked_token_mix.h"

namespace mixerlab {

MixerStackPath preferredMixerStackPath(const at::Tensor& reference) {
  if (const auto forced = kernels::activeComputePaths().mixer_stack) return *forced;
  if (reference.is_cuda() && !kernels::customCausalOpPreferred(reference)) return MixerStackPath::kFused;
  return MixerStackPath::kModules;
}

}  // namespace mixerlab
