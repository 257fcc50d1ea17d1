// Recurrent-state decoding for the Mamba model: per layer the last d_conv inputs of the causal
// depthwise conv and the SSM state h [E, N] are all a new token needs, so each token costs the
// same however long the text is. The prompt goes through the model's own parallel forward once
// (MambaMixer::forward with a MambaRecurrentState), which leaves each layer's state after the last
// prompt token; feeding the prompt one token at a time is far slower (on a GPU about 17 tokens/s
// end to end at a 480-token prompt). A batch of B sequences keeps B states per layer and steps them together.
#include <torch/torch.h>

#include "core/analysis/decoders/decode_batch.h"
#include "core/analysis/decoders/decode_step_scope.h"
#include "core/analysis/decoders/graphed_step.h"
#include "core/analysis/decoders/token_decoder.h"
#include "core/models/row_products.h"
#include "core/models/state_space/mamba.h"
#include "core/util/error.h"

namespace mixerlab {
namespace {
namespace F = torch::nn::functional;

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
    const c10::Device device = model_.backbone->embeddings->weight.device();
    graph_.reset();  // the states below are new tensors: a graph of the last sequence's would miss them
    return runDecodeStep(device, true, [&] {  // the prompt in one parallel pass, keeping each layer's state
      states_.assign(model_.backbone->layers->size(), {});
      negative_a_.clear();
      at::Tensor x = model_.backbone->embeddings->forward(tokenIdTensor(ids, batch_, device));  // [B, L, D]
      for (size_t i = 0; i < states_.size(); ++i) {
        auto& block = *model_.backbone->layers[i]->as<MambaBlock>();
        x = x + block.mixer->forward(block.norm->forward(x), states_[i]);
        negative_a_.push_back(-torch::exp(block.mixer->A_log));
      }
      return logitsOf(x.select(1, length - 1));
    });
  }

  at::Tensor appendBatch(const std::vector<int64_t>& ids) override {
    checkAppendBatch(ids, batch_, "recurrent");
    checkTokenIds(ids, model_.backbone->embeddings->weight.size(0));
    const c10::Device device = model_.backbone->embeddings->weight.device();
    return runDecodeStep(device, true, [&] {
      if (!decodeGraphsRequested()) return step(torch::tensor(ids, torch::kLong).to(device));
      if (!graph_) {  // one static step per sequence (graphed_step.h): its buffers keep their addresses
        step_ids_ = at::empty({batch_}, at::TensorOptions().dtype(at::kLong).device(device));
        graph_ = std::make_unique<GraphedStep>([this] { return step(step_ids_); });
      }
      step_ids_.copy_(torch::tensor(ids, torch::kLong));
      return graph_->run(device);
    });
  }

  std::string stepDescription() const override {
    if (!graph_) return {};
    return graph_->describe();
  }

 private:
  // One token per sequence (ids [B] on the model's device) through every layer: logits [B, V] (the
  // model's dtype and device). The states change in place, so the step is static (graphed_step.h).
  at::Tensor step(const at::Tensor& ids) {
    auto x = model_.backbone->embeddings->forward(ids);  // [B, D]
    for (size_t i = 0; i < states_.size(); ++i) {
      auto& block = *model_.backbone->layers[i]->as<MambaBlock>();
      x = x + layerStep(*block.mixer, states_[i], negative_a_[i], block.norm->forward(x));
    }
    return logitsOf(x);
  }

  // The final norm and the head: [B, D] -> logits [B, V].
  at::Tensor logitsOf(const at::Tensor& x) {
    const at::Tensor normed = model_.backbone->norm_f->forward(x);
    return model_.lm_head ? decodeLinear(*model_.lm_head, normed)
                          : decodeLinear(normed, model_.backbone->embeddings->weight, {});
  }

  // One position of MambaMixer::forward: x [B, D] -> [B, D], advancing the layer's state. A = -exp(A_log)
  // is the same for every position, so it is made once per sequence.
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
  int64_t inner_ = 0, batch_ = 0;
  std::vector<MambaRecurrentState> states_;
  std::vector<at::Tensor> negative_a_;  // per layer: A = -exp(A_log), [E, N]
  std::unique_ptr<GraphedStep> graph_;  // the static step of this sequence (MIXERLAB_DECODE_GRAPHS=on)
  at::Tensor step_ids_;                 // its input buffer
};

}  // namespace

std::unique_ptr<TokenDecoder> makeMambaRecurrentDecoder(LanguageModel& model) {
  auto* mamba = dynamic_cast<MambaModel*>(&model);
  if (mamba == nullptr) throw MixerLabError("the recurrent decoder needs a mamba model");
  return std::make_unique<MambaRecurrentDecoder>(*mamba);
}

}  // namespace mixerlab
