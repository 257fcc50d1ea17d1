// The intended multi-head token mixing of spec section 2 (paper section 3.4, HEAD
// mixer_autoencoder.py::MixerHead): per head h a projection Linear(D -> D/H), its own masked
// Conv1d(T, T, k) with bias, the heads concatenated, then Linear(D -> D) with bias. Not the
// paper-era loop bug (every head reusing the last conv on the unprojected input).
// Names: mixerhead.proj_head.{h}.*, mixerhead.convs.{h}.*, mixerhead.out_proj.*.
#pragma once
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/linear.h>

#include "core/models/mixers/masked_mixer.h"

namespace mixerlab {

class MixerHeadImpl : public torch::nn::Module {
 public:
  MixerHeadImpl(const ModelConfig& c, int64_t heads, const TokenConvSettings& settings);
  at::Tensor forward(const at::Tensor& x);  // [B, L, D] -> [B, L, D]
  torch::nn::ModuleList proj_head{nullptr}, convs{nullptr};
  torch::nn::Linear out_proj{nullptr};
};
TORCH_MODULE(MixerHead);

}  // namespace mixerlab
