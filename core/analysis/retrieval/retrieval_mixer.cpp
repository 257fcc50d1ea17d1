// The retrieval mixer (see retrieval_mixer.h).
#include "core/analysis/retrieval/retrieval_mixer.h"

#include <cmath>

#include <torch/torch.h>

namespace mixerlab {

RetrievalBlockImpl::RetrievalBlockImpl(int64_t slots, int64_t width) {
  seq_layernorm = register_module("seq_layernorm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({width})));
  patch_layernorm = register_module("patch_layernorm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({width})));
  const double bound = 1.0 / std::sqrt(static_cast<double>(slots));  // Conv1d default init, fan_in = c
  conv_weight = register_parameter("conv_weight", torch::empty({slots, slots}).uniform_(-bound, bound));
  conv_bias = register_parameter("conv_bias", torch::empty({slots}).uniform_(-bound, bound));
  ff_in = register_module("ff_in", torch::nn::Linear(width, 4 * width));
  ff_out = register_module("ff_out", torch::nn::Linear(4 * width, width));
}

at::Tensor RetrievalBlockImpl::forward(const at::Tensor& x) {
  auto mixed = torch::matmul(conv_weight, seq_layernorm->forward(x)) + conv_bias.unsqueeze(-1);
  auto h = x + mixed;
  return h + ff_out->forward(torch::gelu(ff_in->forward(patch_layernorm->forward(h))));
}

RetrievalMixerImpl::RetrievalMixerImpl(int64_t slots, int64_t width, int64_t layers) {
  blocks = register_module("blocks", torch::nn::ModuleList());
  for (int64_t i = 0; i < layers; ++i) blocks->push_back(RetrievalBlock(slots, width));
  head = register_module("head", torch::nn::Linear(width, 1));
}

at::Tensor RetrievalMixerImpl::forward(const at::Tensor& samples) {
  auto x = samples;
  for (const auto& block : *blocks) x = block->as<RetrievalBlock>()->forward(x);
  const auto scores = head->forward(x).squeeze(-1);  // [B, c]
  return scores.narrow(1, 1, scores.size(1) - 1);    // drop the query's slot
}

}  // namespace mixerlab
