// Recurrent-state decoding for the Mamba model: per layer the last d_conv inputs of the causal
// depthwise conv and the SSM state h [E, N] are all a new token needs, so each token costs the
// same however long the text is. The prompt is fed one token at a time through the same step, so
// prefill and decode share one code path (the full forward's parallel scan is the reference). A batch
// of B sequences keeps B states per layer and steps them together.
#include <torch/torch.h>

#include "core/analysis/decoders/decode_batch.h"
#include "core/analysis/decoders/decode_step_scope.h"
#include "core/analysis/decoders/row_products.h"
#include "core/analysis/decoders/token_decoder.h"
#include "core/models/state_space/mamba.h"
#include "core/util/error.h"

namespace mixerlab {
namespace {
namespace F = torch::nn::functional;

struct LayerState {
  at::Tensor conv_inputs;  // [B, E, d_conv]: u_in of the last d_conv positions (zeros before the start)
  at::Tensor ssm;          // [B, E, N]
};

class MambaRecurrentDecoder : public TokenDecoder {
 public:
  explicit MambaRecurrentDecoder(MambaModel& model) : model_(model), options_(mambaOptions(model.config())) {
    inner_ = options_.expand * model.config().d_model;
  }
  std::string name() const override { return "recurrent"; }

  at::Tensor prefillBatch(const std::vector<std::vector<int64_t>>& prompts) override {
    const int64_t length = promptBatchLength(prompts, "recurrent");
    const std::vector<int64_t> ids = flattenPrompts(prompts);
    checkTokenIds(ids, model_.backbone->embeddings->weight.size(0));
    batch_ = static_cast<int64_t>(prompts.size());
    const auto options = model_.backbone->embeddings->weight.options();
    return runDecodeStep(options.device(), true, [&] {  // the prompt too goes one token at a time
      states_.clear();
      negative_a_.clear();
      for (const auto& layer : *model_.backbone->layers) {
        states_.push_back({torch::zeros({batch_, inner_, options_.d_conv}, options),
                           torch::zeros({batch_, inner_, options_.d_state}, options)});
        negative_a_.push_back(-torch::exp(layer->as<MambaBlock>()->mixer->A_log));
      }
      at::Tensor logits;
      std::vector<int64_t> column(static_cast<size_t>(batch_));
      for (int64_t t = 0; t < length; ++t) {
        for (int64_t b = 0; b < batch_; ++b) column[static_cast<size_t>(b)] = ids[static_cast<size_t>(b * length + t)];
        logits = step(column);
      }
      return logits;
    });
  }

  at::Tensor appendBatch(const std::vector<int64_t>& ids) override {
    checkAppendBatch(ids, batch_, "recurrent");
    checkTokenIds(ids, model_.backbone->embeddings->weight.size(0));
    return runDecodeStep(model_.backbone->embeddings->weight.device(), true, [&] { return step(ids); });
  }

 private:
  // One token per sequence through every layer: logits [B, V] (the model's dtype and device).
  at::Tensor step(const std::vector<int64_t>& ids) {
    auto input = torch::tensor(ids, torch::kLong).to(model_.backbone->embeddings->weight.device());
    auto x = model_.backbone->embeddings->forward(input);  // [B, D]
    for (size_t i = 0; i < states_.size(); ++i) {
      auto& block = *model_.backbone->layers[i]->as<MambaBlock>();
      x = x + layerStep(*block.mixer, states_[i], negative_a_[i], block.norm->forward(x));
    }
    x = model_.backbone->norm_f->forward(x);
    return model_.lm_head ? decodeLinear(*model_.lm_head, x) : decodeLinear(x, model_.backbone->embeddings->weight, {});
  }

  // One position of MambaMixer::forward: x [B, D] -> [B, D], advancing the layer's state. A = -exp(A_log)
  // is the same for every position, so it is made once per sequence.
  at::Tensor layerStep(MambaMixerImpl& m, LayerState& s, const at::Tensor& A, const at::Tensor& x) {
    const int64_t N = options_.d_state, R = options_.dt_rank;
    auto projected = decodeLinear(*m.in_proj, x);  // [B, 2E]
    auto u_in = projected.narrow(-1, 0, inner_), z = projected.narrow(-1, inner_, inner_);
    s.conv_inputs = torch::cat({s.conv_inputs.narrow(2, 1, options_.d_conv - 1), u_in.unsqueeze(-1)}, 2);
    // Conv1d weight [E, 1, d_conv]: output t = sum_k w[k] * u_in[t - d_conv + 1 + k] + bias.
    auto conv = (s.conv_inputs * m.conv1d->weight.squeeze(1).unsqueeze(0)).sum(-1) + m.conv1d->bias;
    auto u = F::silu(conv);  // [B, E]
    auto params = decodeLinear(*m.x_proj, u);
    auto dt_low = params.narrow(-1, 0, R), B = params.narrow(-1, R, N), C = params.narrow(-1, R + N, N);
    auto delta = F::softplus(decodeLinear(*m.dt_proj, dt_low));  // [B, E]
    s.ssm = torch::exp(delta.unsqueeze(-1) * A) * s.ssm + (delta * u).unsqueeze(-1) * B.unsqueeze(1);
    auto y = (s.ssm * C.unsqueeze(1)).sum(-1) + m.D * u;  // [B, E]
    return decodeLinear(*m.out_proj, y * F::silu(z));
  }

  MambaModel& model_;
  MambaOptions options_;
  int64_t inner_ = 0, batch_ = 0;
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
