// Multi-head token mixing (see mixer_head.h).
#include "core/models/mixers/mixer_head.h"

#include <vector>

#include <torch/torch.h>

namespace mixerlab {

MixerHeadImpl::MixerHeadImpl(const ModelConfig& c, int64_t heads, const TokenConvSettings& settings, bool compat)
    : compat_(compat) {
  proj_head = register_module("proj_head", torch::nn::ModuleList());
  convs = register_module("convs", torch::nn::ModuleList());
  for (int64_t h = 0; h < heads; ++h) {
    proj_head->push_back(BiasFusedLinear(c.d_model, c.d_model / heads));
    convs->push_back(MaskedTokenConv(c.context_length, c.kernel_size, settings));
  }
  out_proj = register_module("out_proj", BiasFusedLinear(compat ? heads * c.d_model : c.d_model, c.d_model));
}

at::Tensor MixerHeadImpl::forward(const at::Tensor& x) {
  std::vector<at::Tensor> parts;
  parts.reserve(convs->size());
  if (compat_) {
    const auto last = convs[convs->size() - 1]->as<MaskedTokenConv>()->forward(x);
    parts.assign(convs->size(), last);
    return out_proj->forward(torch::cat(parts, -1));
  }
  for (size_t h = 0; h < convs->size(); ++h) {
    parts.push_back(convs[h]->as<MaskedTokenConv>()->forward(proj_head[h]->as<BiasFusedLinearImpl>()->forward(x)));
  }
  return out_proj->forward(torch::cat(parts, -1));
}

}  // namespace mixerlab
