// The intended multi-head token mixing (docs/architectures.md) (paper section 3.4, HEAD
// mixer_autoencoder.py::MixerHead): per head h a projection Linear(D -> D/H), its own masked
// Conv1d(T, T, k) with bias, the heads concatenated, then Linear(D -> D) with bias.
// With `compat` it reproduces the paper-era code's loop bug instead (docs/architectures.md, docs/fidelity.md): every
// head computes the LAST head's conv on the unprojected input, the projections are computed by nobody, and out_proj is
// Linear(H*D -> D) over the H identical copies; convs 0..H-2 stay untrained. Names: mixerhead.proj_head.{h}.*,
// mixerhead.convs.{h}.*, mixerhead.out_proj.*.
#pragma once
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/linear.h>

#include "core/models/bias_fused_linear.h"
#include "core/models/mixers/masked_mixer.h"

namespace mixerlab {

class MixerHeadImpl : public torch::nn::Module {
 public:
  MixerHeadImpl(const ModelConfig& c, int64_t heads, const TokenConvSettings& settings, bool compat = false);
  at::Tensor forward(const at::Tensor& x);  // [B, L, D] -> [B, L, D]
  bool compat() const { return compat_; }
  torch::nn::ModuleList proj_head{nullptr}, convs{nullptr};
  BiasFusedLinear out_proj{nullptr};

 private:
  bool compat_;
};
TORCH_MODULE(MixerHead);

}  // namespace mixerlab
