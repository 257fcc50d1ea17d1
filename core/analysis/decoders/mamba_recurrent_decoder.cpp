// Recurrent-state decoding for the Mamba model: per layer the last d_conv inputs of the causal
// depthwise conv and the SSM state h [E, N] are all a new token needs, so each token costs the
// same however long the text is. The prompt is fed one token at a time through the same step, so
// prefill and decode share one code path (the full forward's parallel scan is the reference).
#include <torch/torch.h>

#include "core/analysis/decoders/decode_step_scope.h"
#include "core/analysis/decoders/row_products.h"
#include "core/analysis/decoders/token_decoder.h"
#include "core/models/state_space/mamba.h"
#include "core/util/error.h"

namespace mixerlab {
namespace {
namespace F = torch::nn::functional;

struct LayerState {
  at::Tensor conv_inputs;  // [1, E, d_conv]: u_in of the last d_conv positions (zeros before the start)
  at::Tensor ssm;          // [1, E, N]
};

class MambaRecurrentDecoder : public TokenDecoder {
 public:
  explicit MambaRecurrentDecoder(MambaModel& model) : model_(model), options_(mambaOptions(model.config())) {
    inner_ = options_.expand * model.config().d_model;
  }
  std::string name() const override { return "recurrent"; }

  at::Tensor prefill(const std::vector<int64_t>& ids) override {
    if (ids.empty()) throw MixerLabError("recurrent decoding needs at least one prompt token");
    const auto options = model_.backbone->embeddings->weight.options();
    states_.clear();
    for (size_t i = 0; i < model_.backbone->layers->size(); ++i) {
      states_.push_back(
          {torch::zeros({1, inner_, options_.d_conv}, options), torch::zeros({1, inner_, options_.d_state}, options)});
    }
    return runDecodeStep(options.device(), true, [&] {  // the prompt too goes one token at a time
      negative_a_.clear();
      for (const auto& layer : *model_.backbone->layers)
        negative_a_.push_back(-torch::exp(layer->as<MambaBlock>()->mixer->A_log));
      at::Tensor logits;
      for (int64_t id : ids) logits = step(id);
      return logits;
    });
  }

  at::Tensor append(int64_t id) override {
    return runDecodeStep(model_.backbone->embeddings->weight.device(), true, [&] { return step(id); });
  }

 private:
  // One token through every layer: logits [V] (the model's dtype and device).
  at::Tensor step(int64_t id) {
    auto input = torch::tensor({id}, torch::kLong).to(model_.backbone->embeddings->weight.device());
    auto x = model_.backbone->embeddings->forward(input);  // [1, D]
    for (size_t i = 0; i < states_.size(); ++i) {
      auto& block = *model_.backbone->layers[i]->as<MambaBlock>();
      x = x + layerStep(*block.mixer, states_[i], negative_a_[i], block.norm->forward(x));
    }
    x = model_.backbone->norm_f->forward(x);
    auto logits =
        model_.lm_head ? decodeLinear(*model_.lm_head, x) : decodeLinear(x, model_.backbone->embeddings->weight, {});
    return logits[0];
  }

  // One position of MambaMixer::forward: x [1, D] -> [1, D], advancing the layer's state. A = -exp(A_log)
  // is the same for every position, so it is made once per sequence.
  at::Tensor layerStep(MambaMixerImpl& m, LayerState& s, const at::Tensor& A, const at::Tensor& x) {
    const int64_t N = options_.d_state, R = options_.dt_rank;
    auto projected = decodeLinear(*m.in_proj, x);  // [1, 2E]
    auto u_in = projected.narrow(-1, 0, inner_), z = projected.narrow(-1, inner_, inner_);
    s.conv_inputs = torch::cat({s.conv_inputs.narrow(2, 1, options_.d_conv - 1), u_in.unsqueeze(-1)}, 2);
    // Conv1d weight [E, 1, d_conv]: output t = sum_k w[k] * u_in[t - d_conv + 1 + k] + bias.
    auto conv = (s.conv_inputs * m.conv1d->weight.squeeze(1).unsqueeze(0)).sum(-1) + m.conv1d->bias;
    auto u = F::silu(conv);  // [1, E]
    auto params = decodeLinear(*m.x_proj, u);
    auto dt_low = params.narrow(-1, 0, R), B = params.narrow(-1, R, N), C = params.narrow(-1, R + N, N);
    auto delta = F::softplus(decodeLinear(*m.dt_proj, dt_low));  // [1, E]
    s.ssm = torch::exp(delta.unsqueeze(-1) * A) * s.ssm + (delta * u).unsqueeze(-1) * B.unsqueeze(1);
    auto y = (s.ssm * C.unsqueeze(1)).sum(-1) + m.D * u;  // [1, E]
    return decodeLinear(*m.out_proj, y * F::silu(z));
  }

  MambaModel& model_;
  MambaOptions options_;
  int64_t inner_ = 0;
  std::vector<LayerState> states_;
  std::vector<at::Tensor> negative_a_;  // per layer: A = -exp(A_log), [E, N]
};

}  // namespace

std::unique_ptr<TokenDecoder> makeMambaRecurrentDecoder(LanguageModel& model) {
  auto* mamba = dynamic_cast<MambaModel*>(&model);
  if (mamba == nullptr) throw MixerLabError("the recurrent decoder needs a mamba model");
  return std::make_unique<MambaRecurrentDecoder>(*mamba);
}

}  // namespace mixerlab
