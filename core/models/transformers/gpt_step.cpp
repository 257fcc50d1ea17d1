// The GPT family's one-token step (see gpt_step.h): GptBlock's post-LayerNorm arithmetic with keys
// and values kept per layer, learned positions embedded at the rows' positions.
#include "core/models/transformers/gpt_step.h"

#include <torch/torch.h>

#include "core/models/row_products.h"
#include "core/models/transformers/gpt_transformer.h"

namespace mixerlab {
namespace {

// HF's Conv1D (x W + b, W [in, out]): a gemv over W^T for one row.
at::Tensor gptConv1D(GptConv1DImpl& conv, const at::Tensor& x) {
  if (x.numel() != conv.weight.size(0)) return conv.forward(x);
  return decodeLinear(x, conv.weight.t(), conv.bias);
}

class GptStack : public IncrementalStack {
 public:
  explicit GptStack(GptTransformer& m) : m_(m), heads_(m.config().n_heads) {}
  int64_t layers() const override { return static_cast<int64_t>(m_.transformer->h->size()); }
  void reset(int64_t batch, int64_t context, const at::TensorOptions& options) override {
    caches_ = emptyKvCaches(layers(), batch, heads_, context, m_.config().d_model / heads_, options);
  }
  at::Tensor embed(const at::Tensor& ids, const RowPosition& where) override {
    auto positions =
        where.device.defined() ? where.device : torch::arange(where.first, where.first + ids.size(1), ids.options());
    return m_.transformer->tokens_embed->forward(ids) + m_.transformer->positions_embed->forward(positions);
  }
  at::Tensor layer(int64_t i, const at::Tensor& x, const RowPosition& where) override {
    auto& b = *m_.transformer->h[i]->as<GptBlock>();
    auto qkv = gptConv1D(*b.attn->c_attn, x).split(x.size(2), -1);
    auto attended = cachedAttention(caches_[i], splitHeads(qkv[0], heads_), splitHeads(qkv[1], heads_),
                                    splitHeads(qkv[2], heads_), where);
    auto n = b.ln_1->forward(x + gptConv1D(*b.attn->c_proj, mergeHeads(attended)));  // post-LN, as GptBlock
    return b.ln_2->forward(n + b.mlp->forward(n));
  }
  at::Tensor head(const at::Tensor& x) override { return decodeLinear(x, m_.transformer->tokens_embed->weight, {}); }

 private:
  GptTransformer& m_;
  int64_t heads_;
  std::vector<KvCache> caches_;
};

}  // namespace

std::unique_ptr<IncrementalStack> makeGptStack(LanguageModel& model) {
  return std::make_unique<GptStack>(dynamic_cast<GptTransformer&>(model));
}

}  // namespace mixerlab
