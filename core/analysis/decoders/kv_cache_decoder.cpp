// KV-cache decoding for the attention families (Llama, GPT, Transfixer): every layer keeps the keys
// and values of earlier positions, so a new token costs one row of attention per layer. The
// Transfixer's masked conv also keeps the rows it mixes (as the cached mixer does). Llama and GPT
// slide: once T tokens exist, the cache is rebuilt from the last T tokens for every new one (the
// same window the recompute reference sees); the Transfixer stops at T (position-specific conv).
// A batch of B sequences (prompts of one length, stepped together) keeps [B, H, T, hd] caches.
// Llama and GPT also have a static step (positions in device tensors) that a GPU replays as a CUDA
// graph (graphed_step.h, MIXERLAB_DECODE_GRAPHS=on).
#include <cmath>

#include <torch/torch.h>

#include "core/analysis/decoders/decode_batch.h"
#include "core/analysis/decoders/decode_step_scope.h"
#include "core/analysis/decoders/graphed_step.h"
#include "core/analysis/decoders/row_products.h"
#include "core/analysis/decoders/token_decoder.h"
#include "core/analysis/decoders/token_mix_rows.h"
#include "core/models/composite/transfixer.h"
#include "core/models/transformers/gpt_transformer.h"
#include "core/models/transformers/llama_transformer.h"
#include "core/util/error.h"

namespace mixerlab {
namespace {
namespace F = torch::nn::functional;

// Keys and values of one layer, [B, H, T, hd], filled for positions 0..length-1.
struct KvCache {
  at::Tensor keys, values;
};

// Where new rows go: positions first..first+L-1, or (the static step of graphed_step.h: one row)
// the position held in a device tensor ([1], int64), so no kernel takes a host number.
struct RowPosition {
  int64_t first = 0;
  at::Tensor device;
};

// Attention of one new row per sequence at a device-held position over the whole cache, the later
// positions masked: the static form of cachedAttention below.
at::Tensor cachedAttentionAt(KvCache& cache, const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                             const at::Tensor& position) {
  cache.keys.index_copy_(2, position, k);
  cache.values.index_copy_(2, position, v);
  auto scores = torch::matmul(q, cache.keys.transpose(-2, -1)) / std::sqrt(static_cast<double>(q.size(3)));
  const auto key_positions = torch::arange(cache.keys.size(2), position.options());
  scores = scores.masked_fill(key_positions > position, -std::numeric_limits<double>::infinity());  // [B,H,1,T]
  return torch::matmul(torch::softmax(scores, -1), cache.values);
}

// Attention of queries at positions first..first+L-1 over every cached position up to them.
// q, k, v: [B, H, L, hd] (already rotated where the family rotates).
at::Tensor cachedAttention(KvCache& cache, const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                           const RowPosition& where) {
  if (where.device.defined()) return cachedAttentionAt(cache, q, k, v, where.device);
  const int64_t first = where.first, length = q.size(2), end = first + length, head_dim = q.size(3);
  cache.keys.narrow(2, first, length).copy_(k);
  cache.values.narrow(2, first, length).copy_(v);
  auto keys = cache.keys.narrow(2, 0, end), values = cache.values.narrow(2, 0, end);
  auto scores = torch::matmul(q, keys.transpose(-2, -1)) / std::sqrt(static_cast<double>(head_dim));  // [B,H,L,end]
  if (length > 1) {
    // Query row r (position first + r) sees keys 0..first+r.
    auto query_pos = torch::arange(first, end, torch::TensorOptions().dtype(torch::kLong).device(q.device()));
    auto key_pos = torch::arange(end, torch::TensorOptions().dtype(torch::kLong).device(q.device()));
    auto future = key_pos.unsqueeze(0) > query_pos.unsqueeze(1);
    scores = scores.masked_fill(future, -std::numeric_limits<double>::infinity());
  }
  return torch::matmul(torch::softmax(scores, -1), values);  // [B, H, L, hd]
}

at::Tensor splitHeads(const at::Tensor& x, int64_t heads) {  // [B, L, D] -> [B, H, L, hd]
  return x.view({x.size(0), x.size(1), heads, x.size(2) / heads}).transpose(1, 2);
}
at::Tensor mergeHeads(const at::Tensor& x) {  // [B, H, L, hd] -> [B, L, D]
  return x.transpose(1, 2).reshape({x.size(0), x.size(2), x.size(1) * x.size(3)});
}

at::Tensor llamaAttention(LlamaAttentionImpl& attn, KvCache& cache, RotaryTables& rotary, const at::Tensor& x,
                          int64_t heads, const RowPosition& where) {
  auto rotate = [&](const at::Tensor& t) {
    return where.device.defined() ? rotary.applyAt(t, where.device) : rotary.apply(t, where.first);
  };
  auto q = rotate(splitHeads(decodeLinear(*attn.q_proj, x), heads));
  auto k = rotate(splitHeads(decodeLinear(*attn.k_proj, x), heads));
  auto v = splitHeads(decodeLinear(*attn.v_proj, x), heads);
  return decodeLinear(*attn.o_proj, mergeHeads(cachedAttention(cache, q, k, v, where)));
}

// HF's Conv1D (x W + b, W [in, out]) for the decoder: a gemv over W^T for one row.
at::Tensor gptConv1D(GptConv1DImpl& conv, const at::Tensor& x) {
  if (x.numel() != conv.weight.size(0)) return conv.forward(x);
  return decodeLinear(x, conv.weight.t(), conv.bias);
}

// The family-specific part: embedding, one layer at a time, head.
class AttentionStack {
 public:
  virtual ~AttentionStack() = default;
  virtual int64_t layers() const = 0;
  virtual at::Tensor embed(const at::Tensor& ids, const RowPosition& where) = 0;
  virtual at::Tensor layer(int64_t index, const at::Tensor& x, const RowPosition& where) = 0;
  // Whether embed and layer take a device-held position (the static step of graphed_step.h).
  virtual bool takesDevicePositions() const { return true; }
  virtual at::Tensor head(const at::Tensor& x) = 0;  // [B, D] -> [B, V]
  virtual void reset(int64_t batch, int64_t context, const at::TensorOptions& options) = 0;

 protected:
  static std::vector<KvCache> emptyCaches(int64_t layers, int64_t batch, int64_t heads, int64_t context,
                                          int64_t head_dim, const at::TensorOptions& options) {
    std::vector<KvCache> caches;
    for (int64_t i = 0; i < layers; ++i) {
      caches.push_back({torch::zeros({batch, heads, context, head_dim}, options),
                        torch::zeros({batch, heads, context, head_dim}, options)});
    }
    return caches;
  }
};

class LlamaStack : public AttentionStack {
 public:
  explicit LlamaStack(LlamaTransformer& m)
      : m_(m), heads_(m.config().n_heads), rotary_(m.config().d_model / m.config().n_heads, m.config().rope_theta) {}
  int64_t layers() const override { return static_cast<int64_t>(m_.model->layers->size()); }
  void reset(int64_t batch, int64_t context, const at::TensorOptions& options) override {
    caches_ = emptyCaches(layers(), batch, heads_, context, m_.config().d_model / heads_, options);
    rotary_.prepare(context, options);
  }
  at::Tensor embed(const at::Tensor& ids, const RowPosition&) override { return m_.model->embed_tokens->forward(ids); }
  at::Tensor layer(int64_t i, const at::Tensor& x, const RowPosition& where) override {
    auto& l = *m_.model->layers[i]->as<LlamaDecoderLayer>();
    auto h = x + llamaAttention(*l.self_attn, caches_[i], rotary_, l.input_layernorm->forward(x), heads_, where);
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

class TransfixerStack : public AttentionStack {
 public:
  explicit TransfixerStack(Transfixer& m)
      : m_(m),
        heads_(m.config().n_heads),
        placement_(TransfixerOptions::fromConfig(m.config()).placement()),
        rotary_(m.config().d_model / m.config().n_heads, m.config().rope_theta) {}
  int64_t layers() const override { return static_cast<int64_t>(m_.model->layers->size()); }
  void reset(int64_t batch, int64_t context, const at::TensorOptions& options) override {
    caches_ = emptyCaches(layers(), batch, heads_, context, m_.config().d_model / heads_, options);
    rotary_.prepare(context, options);
    conv_rows_.clear();
    conv_weights_.clear();
    for (const auto& item : *m_.model->layers) {
      conv_rows_.push_back(torch::zeros({batch, context, m_.config().d_model}, options));
      conv_weights_.push_back(item->as<TransfixerLayer>()->conv->appliedWeight());
    }
  }
  at::Tensor embed(const at::Tensor& ids, const RowPosition&) override { return m_.model->embed_tokens->forward(ids); }
  bool takesDevicePositions() const override { return false; }  // its conv mixes rows by host position
  at::Tensor layer(int64_t i, const at::Tensor& x, const RowPosition& where) override {
    auto& l = *m_.model->layers[i]->as<TransfixerLayer>();
    const int64_t first = where.first;
    auto attention = [&](const at::Tensor& in) {
      return llamaAttention(*l.self_attn, caches_[i], rotary_, in, heads_, where);
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

class GptStack : public AttentionStack {
 public:
  explicit GptStack(GptTransformer& m) : m_(m), heads_(m.config().n_heads) {}
  int64_t layers() const override { return static_cast<int64_t>(m_.transformer->h->size()); }
  void reset(int64_t batch, int64_t context, const at::TensorOptions& options) override {
    caches_ = emptyCaches(layers(), batch, heads_, context, m_.config().d_model / heads_, options);
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

class KvCacheDecoder : public TokenDecoder {
 public:
  KvCacheDecoder(LanguageModel& model, std::unique_ptr<AttentionStack> stack)
      : options_(model.parameters().front().options()),
        stack_(std::move(stack)),
        context_(model.config().context_length),
        vocab_(model.config().vocab_size),
        slides_(contextPolicy(model) == ContextPolicy::kSlideWindow) {}
  std::string name() const override { return "kv-cache"; }
  std::string stepDescription() const override {
    if (!graph_) return {};
    return graph_->describe();
  }

  at::Tensor prefillBatch(const std::vector<std::vector<int64_t>>& prompts) override {
    const int64_t length = promptBatchLength(prompts, "KV-cache");
    if (length > context_ && !slides_) {
      throw MixerLabError("the prompt has " + std::to_string(length) + " tokens but the window holds " +
                          std::to_string(context_));
    }
    for (const auto& prompt : prompts) checkTokenIds(prompt, vocab_);
    sequences_ = prompts;
    return rebuild();
  }

  at::Tensor appendBatch(const std::vector<int64_t>& ids) override {
    checkAppendBatch(ids, static_cast<int64_t>(sequences_.size()), "KV-cache");
    checkTokenIds(ids, vocab_);
    for (size_t b = 0; b < ids.size(); ++b) sequences_[b].push_back(ids[b]);
    if (length_ < context_) {
      return runDecodeStep(options_.device(), true, [&] {
        return decodeGraphsRequested() && stack_->takesDevicePositions() ? staticStep(ids) : run(ids, length_);
      });
    }
    if (!slides_) throw MixerLabError("the window is full (" + std::to_string(context_) + " tokens)");
    return rebuild();  // the window slides: recompute the last T tokens at positions 0..T-1
  }

 private:
  at::Tensor rebuild() {
    const auto batch = static_cast<int64_t>(sequences_.size());
    const auto keep =
        static_cast<std::ptrdiff_t>(std::min<size_t>(sequences_[0].size(), static_cast<size_t>(context_)));
    std::vector<int64_t> windows;  // each sequence's last `keep` tokens, row after row
    for (const auto& tokens : sequences_) windows.insert(windows.end(), tokens.end() - keep, tokens.end());
    length_ = 0;
    graph_.reset();  // the caches are remade below: a graph of the last ones would miss them
    // One OpenMP thread: the prefill's time is in BLAS products (decode_step_scope.h).
    return runDecodeStep(options_.device(), true, [&] {
      stack_->reset(batch, context_, options_);
      return run(windows, 0);
    });
  }

  // ids: the batch's new tokens, row after row, at positions first..; logits [B, V].
  at::Tensor run(const std::vector<int64_t>& ids, int64_t first) {
    const auto batch = static_cast<int64_t>(sequences_.size());
    const at::Tensor id_tensor = tokenIdTensor(ids, batch, options_.device());
    length_ = first + id_tensor.size(1);
    return forwardStack(id_tensor, {first, {}});
  }

  // ids [B, L] at `where` through every layer: the logits after the last ([B, V], the model's dtype
  // and device).
  at::Tensor forwardStack(const at::Tensor& ids, const RowPosition& where) {
    auto x = stack_->embed(ids, where);
    for (int64_t i = 0; i < stack_->layers(); ++i) x = stack_->layer(i, x, where);
    return stack_->head(x.select(1, x.size(1) - 1));
  }

  // One new token per sequence as a static step (graphed_step.h): ids and position in device
  // buffers (the logits in GraphedStep's); on a GPU replayed as a CUDA graph from the second token.
  at::Tensor staticStep(const std::vector<int64_t>& ids) {
    const c10::Device device = options_.device();
    if (!graph_) {
      const auto index_options = at::TensorOptions().dtype(at::kLong).device(device);
      step_ids_ = at::empty({static_cast<int64_t>(ids.size()), 1}, index_options);
      step_position_ = at::empty({1}, index_options);
      graph_ = std::make_unique<GraphedStep>([this] { return forwardStack(step_ids_, {0, step_position_}); });
    }
    step_ids_.copy_(torch::tensor(ids, torch::kLong).view({-1, 1}));
    step_position_.fill_(length_);
    const at::Tensor& logits = graph_->run(device);
    length_ += 1;
    return logits;
  }

  at::TensorOptions options_;  // the model's parameters' device and dtype, looked up once
  std::unique_ptr<AttentionStack> stack_;
  int64_t context_, vocab_;
  bool slides_;
  int64_t length_ = 0;
  std::vector<std::vector<int64_t>> sequences_;  // each sequence's tokens so far
  std::unique_ptr<GraphedStep> graph_;           // the static step (MIXERLAB_DECODE_GRAPHS=on)
  at::Tensor step_ids_, step_position_;          // its input buffers
};

}  // namespace

std::unique_ptr<TokenDecoder> makeKvCacheDecoder(LanguageModel& model) {
  std::unique_ptr<AttentionStack> stack;
  if (auto* llama = dynamic_cast<LlamaTransformer*>(&model)) stack = std::make_unique<LlamaStack>(*llama);
  if (auto* gpt = dynamic_cast<GptTransformer*>(&model)) stack = std::make_unique<GptStack>(*gpt);
  if (auto* transfixer = dynamic_cast<Transfixer*>(&model)) stack = std::make_unique<TransfixerStack>(*transfixer);
  if (!stack) throw MixerLabError("no KV-cache decoder for architecture \"" + model.config().arch + "\"");
  return std::make_unique<KvCacheDecoder>(model, std::move(stack));
}

}  // namespace mixerlab
