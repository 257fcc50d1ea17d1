// How the flat masked mixer runs its block stack: block by block on [B, T, D] tensors (the modules,
// as the research code), or token-major ([T, B, D]), where each token mix and both halves of its
// backward are one plain GEMM with no transposed copies, optionally with every residual add fused into
// the LayerNorm after it (kernels/residual_layer_norm.h), which in mixed precision also hands the next
// product its half-precision input without a cast. All three compute the same function; which is
// fastest depends on the device (docs/benchmarks.md, "GPU"). ComputePaths::mixer_stack forces one.
#pragma once

#include <ATen/ATen.h>

#include "kernels/environment/compute_paths.h"

namespace mixerlab {

using kernels::MixerStackPath;
using kernels::mixerStackPathName;
using kernels::parseMixerStackPath;

// The path for a stack whose tensors look like `reference` (the embedding weight): the active compute
// paths' mixer_stack, else kFused where the token mix takes the GEMM (a GPU with half-precision
// products, see kernels::customCausalOpPreferred), else kModules (the CPU's custom causal op skips the
// masked half). The model falls back to a simpler path when its blocks do not fit this one
// (MaskedMixer::stackPath).
MixerStackPath preferredMixerStackPath(const at::Tensor& reference);

}  // namespace mixerlab
