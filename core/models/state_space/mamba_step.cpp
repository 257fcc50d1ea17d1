// Mamba's one-token step (see mamba_step.h).
#include "core/models/state_space/mamba_step.h"

#include <torch/torch.h>

#include "core/models/row_products.h"
#include "core/models/state_space/mamba.h"
#include "core/util/error.h"

namespace mixerlab {
namespace {
namespace F = torch::nn::functional;

class MambaRecurrentStack : public RecurrentStack {
 public:
  explicit MambaRecurrentStack(MambaModel& model) : model_(model), options_(mambaOptions(model.config())) {
    inner_ = options_.expand * model.config().d_model;
  }

  int64_t vocabSize() const override { return model_.backbone->embeddings->weight.size(0); }
  c10::Device device() const override { return model_.backbone->embeddings->weight.device(); }

  at::Tensor prefill(const at::Tensor& ids) override {
    states_.assign(model_.backbone->layers->size(), {});
    negative_a_.clear();
    at::Tensor x = model_.backbone->embeddings->forward(ids);  // [B, L, D]
    for (size_t i = 0; i < states_.size(); ++i) {
      auto& block = *model_.backbone->layers[i]->as<MambaBlock>();
      x = x + block.mixer->forward(block.norm->forward(x), states_[i]);
      negative_a_.push_back(-torch::exp(block.mixer->A_log));
    }
    return logitsOf(x.select(1, x.size(1) - 1));
  }

  at::Tensor step(const at::Tensor& ids) override {
    auto x = model_.backbone->embeddings->forward(ids);  // [B, D]
    for (size_t i = 0; i < states_.size(); ++i) {
      auto& block = *model_.backbone->layers[i]->as<MambaBlock>();
      x = x + layerStep(*block.mixer, states_[i], negative_a_[i], block.norm->forward(x));
    }
    return logitsOf(x);
  }

 private:
  // The final norm and the head: [B, D] -> logits [B, V].
  at::Tensor logitsOf(const at::Tensor& x) {
    const at::Tensor normed = model_.backbone->norm_f->forward(x);
    return model_.lm_head ? decodeLinear(*model_.lm_head, normed)
                          : decodeLinear(normed, model_.backbone->embeddings->weight, {});
  }

  // One position of MambaMixer::forward: x [B, D] -> [B, D], advancing the layer's state. A = -exp(A_log)
  // is the same for every position, so it is made once per prefill.
  at::Tensor layerStep(MambaMixerImpl& m, MambaRecurrentState& s, const at::Tensor& A, const at::Tensor& x) {
    const int64_t N = options_.d_state, R = options_.dt_rank;
    auto projected = decodeLinear(*m.in_proj, x);  // [B, 2E]
    auto u_in = projected.narrow(-1, 0, inner_), z = projected.narrow(-1, inner_, inner_);
    s.conv_inputs.copy_(torch::cat({s.conv_inputs.narrow(2, 1, options_.d_conv - 1), u_in.unsqueeze(-1)}, 2));
    // Conv1d weight [E, 1, d_conv]: output t = sum_k w[k] * u_in[t - d_conv + 1 + k] + bias.
    auto conv = (s.conv_inputs * m.conv1d->weight.squeeze(1).unsqueeze(0)).sum(-1) + m.conv1d->bias;
    auto u = F::silu(conv);  // [B, E]
    auto params = decodeLinear(*m.x_proj, u);
    auto dt_low = params.narrow(-1, 0, R), B = params.narrow(-1, R, N), C = params.narrow(-1, R + N, N);
    auto delta = F::softplus(decodeLinear(*m.dt_proj, dt_low));  // [B, E]
    s.ssm.mul_(torch::exp(delta.unsqueeze(-1) * A)).add_((delta * u).unsqueeze(-1) * B.unsqueeze(1));
    auto y = (s.ssm * C.unsqueeze(1)).sum(-1) + m.D * u;  // [B, E]
    return decodeLinear(*m.out_proj, y * F::silu(z));
  }

  MambaModel& model_;
  MambaOptions options_;
  int64_t inner_ = 0;
  std::vector<MambaRecurrentState> states_;
  std::vector<at::Tensor> negative_a_;  // per layer: A = -exp(A_log), [E, N]
};

}  // namespace

std::unique_ptr<RecurrentStack> makeMambaRecurrentStack(LanguageModel& model) {
  return std::make_unique<MambaRecurrentStack>(dynamic_cast<MambaModel&>(model));
}

}  // namespace mixerlab
