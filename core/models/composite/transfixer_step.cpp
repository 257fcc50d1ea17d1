// The Transfixer family's one-token step (see transfixer_step.h): TransfixerLayer's arithmetic for
// each conv placement, the attention over KV caches (as Llama's) and the conv over the rows it has
// mixed so far (as the cached mixer's). The conv mixes rows by host position, so there is no static
// step with device-held positions.
#include "core/models/composite/transfixer_step.h"

#include <torch/torch.h>

#include "core/models/composite/transfixer.h"
#include "core/models/mixers/token_mix_rows.h"
#include "core/models/row_products.h"
#include "core/models/transformers/llama_step.h"

namespace mixerlab {
namespace {

class TransfixerStack : public IncrementalStack {
 public:
  explicit TransfixerStack(Transfixer& m)
      : m_(m),
        heads_(m.config().n_heads),
        placement_(TransfixerOptions::fromConfig(m.config()).placement()),
        rotary_(m.config().d_model / m.config().n_heads, m.config().rope_theta) {}
  int64_t layers() const override { return static_cast<int64_t>(m_.model->layers->size()); }
  void reset(int64_t batch, int64_t context, const at::TensorOptions& options) override {
    caches_ = emptyKvCaches(layers(), batch, heads_, context, m_.config().d_model / heads_, options);
    rotary_.prepare(context, options);
    conv_rows_.clear();
    conv_weights_.clear();
    for (const auto& item : *m_.model->layers) {
      conv_rows_.push_back(torch::zeros({batch, context, m_.config().d_model}, options));
      conv_weights_.push_back(item->as<TransfixerLayer>()->conv->appliedWeight());
    }
  }
  at::Tensor embed(const at::Tensor& ids, const RowPosition&) override { return m_.model->embed_tokens->forward(ids); }
  bool takesDevicePositions() const override { return false; }
  at::Tensor layer(int64_t i, const at::Tensor& x, const RowPosition& where) override {
    auto& l = *m_.model->layers[i]->as<TransfixerLayer>();
    const int64_t first = where.first;
    auto attention = [&](const at::Tensor& in) {
      return llamaCachedAttention(*l.self_attn, caches_[i], rotary_, in, heads_, where);
    };
    auto conv = [&](const at::Tensor& in) {
      conv_rows_[i].narrow(1, first, in.size(1)).copy_(in);
      return mixTokenRows(conv_weights_[i], l.conv->bias, conv_rows_[i].narrow(1, 0, first + in.size(1)), first);
    };
    at::Tensor h;
    switch (placement_) {
      case ConvPlacement::AfterAttention: {
        auto a = attention(l.input_layernorm->forward(x));
        h = x + a + conv(a);
        break;
      }
      case ConvPlacement::Parallel: {
        auto n = l.input_layernorm->forward(x);
        h = x + attention(n) + conv(n);
        break;
      }
      case ConvPlacement::BeforeAttention: {
        auto h1 = x + conv(l.conv_layernorm->forward(x));
        h = h1 + attention(l.input_layernorm->forward(h1));
        break;
      }
    }
    return h + l.mlp->forward(l.post_attention_layernorm->forward(h));
  }
  at::Tensor head(const at::Tensor& x) override { return decodeLinear(*m_.lm_head, m_.model->norm->forward(x)); }

 private:
  Transfixer& m_;
  int64_t heads_;
  ConvPlacement placement_;
  RotaryTables rotary_;
  std::vector<KvCache> caches_;
  std::vector<at::Tensor> conv_rows_, conv_weights_;
};

}  // namespace

std::unique_ptr<IncrementalStack> makeTransfixerStack(LanguageModel& model) {
  return std::make_unique<TransfixerStack>(dynamic_cast<Transfixer&>(model));
}

}  // namespace mixerlab
