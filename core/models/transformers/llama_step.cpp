// The Llama family's one-token step (see llama_step.h): the same arithmetic as LlamaDecoderLayer's
// forward, with keys and values kept per layer and one-row products as matrix-vector products.
#include "core/models/transformers/llama_step.h"

#include <torch/torch.h>

#include "core/models/row_products.h"

namespace mixerlab {
namespace {
namespace F = torch::nn::functional;

class LlamaStack : public IncrementalStack {
 public:
  explicit LlamaStack(LlamaTransformer& m)
      : m_(m), heads_(m.config().n_heads), rotary_(m.config().d_model / m.config().n_heads, m.config().rope_theta) {}
  int64_t layers() const override { return static_cast<int64_t>(m_.model->layers->size()); }
  void reset(int64_t batch, int64_t context, const at::TensorOptions& options) override {
    caches_ = emptyKvCaches(layers(), batch, heads_, context, m_.config().d_model / heads_, options);
    rotary_.prepare(context, options);
  }
  at::Tensor embed(const at::Tensor& ids, const RowPosition&) override { return m_.model->embed_tokens->forward(ids); }
  at::Tensor layer(int64_t i, const at::Tensor& x, const RowPosition& where) override {
    auto& l = *m_.model->layers[i]->as<LlamaDecoderLayer>();
    auto h = x + llamaCachedAttention(*l.self_attn, caches_[i], rotary_, l.input_layernorm->forward(x), heads_, where);
    auto& mlp = *l.mlp;
    const auto n = l.post_attention_layernorm->forward(h);
    return h + decodeLinear(*mlp.down_proj, F::silu(decodeLinear(*mlp.gate_proj, n)) * decodeLinear(*mlp.up_proj, n));
  }
  at::Tensor head(const at::Tensor& x) override {
    auto n = m_.model->norm ? m_.model->norm->forward(x) : x;
    return m_.lm_head ? decodeLinear(*m_.lm_head, n) : decodeLinear(n, m_.model->embed_tokens->weight, {});
  }

 private:
  LlamaTransformer& m_;
  int64_t heads_;
  RotaryTables rotary_;
  std::vector<KvCache> caches_;
};

}  // namespace

at::Tensor llamaCachedAttention(LlamaAttentionImpl& attn, KvCache& cache, RotaryTables& rotary, const at::Tensor& x,
                                int64_t heads, const RowPosition& where) {
  auto rotate = [&](const at::Tensor& t) {
    return where.device.defined() ? rotary.applyAt(t, where.device) : rotary.apply(t, where.first);
  };
  auto q = rotate(splitHeads(decodeLinear(*attn.q_proj, x), heads));
  auto k = rotate(splitHeads(decodeLinear(*attn.k_proj, x), heads));
  auto v = splitHeads(decodeLinear(*attn.v_proj, x), heads);
  return decodeLinear(*attn.o_proj, mergeHeads(cachedAttention(cache, q, k, v, where)));
}

std::unique_ptr<IncrementalStack> makeLlamaStack(LanguageModel& model) {
  return std::make_unique<LlamaStack>(dynamic_cast<LlamaTransformer&>(model));
}

}  // namespace mixerlab
