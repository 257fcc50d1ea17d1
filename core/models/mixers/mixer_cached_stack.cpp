// The masked mixer's cached one-token step (see mixer_cached_stack.h).
#include "core/models/mixers/mixer_cached_stack.h"

#include <algorithm>
#include <optional>

#include <torch/torch.h>

#include "core/models/mixers/masked_mixer.h"
#include "core/models/mixers/mixer_expanded.h"
#include "core/models/mixers/mixer_head.h"
#include "core/models/mixers/mixer_options.h"
#include "core/models/mixers/token_mix_rows.h"
#include "core/models/row_products.h"

namespace mixerlab {
namespace mixer_cache {
namespace F = torch::nn::functional;

// The feed-forward sublayer on one new row per sequence ([B, D]): its products as gemv for a batch
// of one (gemm otherwise), with the GELU between them where the block has one.
at::Tensor rowFeedForward(const MixerBlockImpl::FeedForwardProducts& ff, at::Tensor x) {
  x = decodeLinear(x, ff.in->weight, ff.in->bias);
  if (ff.gelu) x = torch::gelu(x);
  return decodeLinear(x, ff.out->weight, ff.out->bias);
}

// A conv's applied weight and bias with the cache of the rows it mixes ([B, T, width], filled 0..n-1).
// Kernel-1 convs decode one row in one of two exact ways, whichever reads less: early in the window
// the new output pulls from the rows so far (position p reads p rows); from the window's middle on,
// every row is pushed into running sums of the positions still to come (position p touches T-1-p
// sums), so a token near the end of a 512 window reads 32 rows instead of 480.
struct MixCache {
  MixCache(at::Tensor applied_weight, const at::Tensor& conv_bias, at::Tensor cache)
      : weight(std::move(applied_weight)), bias(conv_bias), rows(std::move(cache)), rows_2d(rows.select(0, 0)) {
    if (weight.size(2) == 1) {  // one-row decoding: the [T, T] weight and the biases as numbers, made once
      weight_2d = weight.select(2, 0);
      auto numbers = [](const at::Tensor& t) {
        const at::Tensor values = t.detach().to(at::kCPU, at::kDouble).contiguous();
        return std::vector<double>(values.data_ptr<double>(), values.data_ptr<double>() + values.numel());
      };
      diagonal_values = numbers(weight_2d.diagonal());
      if (bias.defined()) bias_values = numbers(bias);
    }
  }
  at::Tensor mix(const at::Tensor& new_rows, int64_t first) {  // writes rows first.., returns their outputs
    rows.narrow(1, first, new_rows.size(1)).copy_(new_rows);
    return mixTokenRows(weight, bias, rows.narrow(1, 0, first + new_rows.size(1)), first);
  }
  // One new row per sequence ([B, width]) of a kernel-1 mix: W[first, :first+1] . rows[b, :first+1] +
  // bias[first]. A batch of one runs as matrix-vector products on [T, width] views.
  at::Tensor mixRow(const at::Tensor& row, int64_t first) {
    const int64_t batch = rows.size(0), context = rows.size(1), width = rows.size(2);
    rows.select(1, first).copy_(row);
    if (2 * first < context - 1) {  // pull: one product over the rows so far
      const int64_t n = first + 1;
      const at::Tensor w = weight_2d.select(0, first).narrow(0, 0, n);
      at::Tensor out = batch == 1 ? at::mv(rows_2d.narrow(0, 0, n).t(), w).unsqueeze(0)
                                  : at::matmul(w.view({1, n}), rows.narrow(1, 0, n)).squeeze(1);
      if (!bias_values.empty()) out.add_(bias_values[static_cast<size_t>(first)]);
      return out;
    }
    if (!pushed_sums.defined()) {  // once per batch: the sums of positions first.. over rows 0..first-1
      pushed_sums = at::zeros({batch, context, width}, rows.options());
      if (first > 0) {
        pushed_sums.narrow(1, first, context - first)
            .copy_(
                at::matmul(weight_2d.narrow(0, first, context - first).narrow(1, 0, first), rows.narrow(1, 0, first)));
      }
    }
    const auto position = static_cast<size_t>(first);
    at::Tensor out = pushed_sums.select(1, first).add(row, diagonal_values[position]);
    if (!bias_values.empty()) out.add_(bias_values[position]);
    if (first + 1 < context) {  // push: sums[b, i] += W[i, first] * row[b] for every later position i
      const int64_t later = context - first - 1;
      const at::Tensor column = weight_2d.select(1, first).narrow(0, first + 1, later);
      if (batch == 1) {
        pushed_sums.select(0, 0).narrow(0, first + 1, later).addr_(column, row.select(0, 0));
      } else {
        pushed_sums.narrow(1, first + 1, later)
            .baddbmm_(column.view({1, later, 1}).expand({batch, later, 1}), row.view({batch, 1, width}));
      }
    }
    return out;
  }
  // The static form of mixRow (graphed_step.h): the position is a device tensor ([1], int64) and the
  // new rows are mixed with all T rows of their sequence (the rows after them are zero, and so are
  // their weights): O(T) instead of O(position) per row, no host number in any kernel.
  at::Tensor mixRowAt(const at::Tensor& row, const at::Tensor& position) {
    rows.index_copy_(1, position, row.unsqueeze(1));
    at::Tensor out = at::matmul(weight_2d.index_select(0, position), rows).squeeze(1);  // [B, width]
    if (bias.defined()) out.add_(bias.index_select(0, position));
    return out;
  }
  bool mixesRows() const { return weight_2d.defined(); }
  at::Tensor weight, bias, rows;
  at::Tensor rows_2d, weight_2d;  // rows_2d: sequence 0's rows [T, width] (the fused step's, for a batch of one)
  at::Tensor pushed_sums;         // [B, T, width]: row i > the last written position holds sum_j W[i, j] rows[b, j]
  std::vector<double> bias_values, diagonal_values;
};

// A tensor the fused step can read as raw fp32: defined, on the CPU, float32, contiguous.
bool plainFloat(const at::Tensor& t) {
  return t.defined() && t.device().is_cpu() && t.scalar_type() == at::kFloat && t.is_contiguous();
}
bool plainFloatOrAbsent(const at::Tensor& t) { return !t.defined() || plainFloat(t); }

// Fills a LayerNorm's slot of a MixerRowLayer; false when the module is not a plain fp32 LayerNorm.
bool describeNorm(const torch::nn::LayerNorm& norm, bool& has, at::Tensor& weight, at::Tensor& bias, double& eps) {
  has = static_cast<bool>(norm);
  if (!has) return true;
  const auto& shape = norm->options.normalized_shape();
  if (shape.size() != 1 || !plainFloatOrAbsent(norm->weight) || !plainFloatOrAbsent(norm->bias)) return false;
  weight = norm->weight;
  bias = norm->bias;
  eps = norm->options.eps();
  return true;
}

class CachedBlock {
 public:
  CachedBlock(MixerBlockImpl& block, int64_t batch, int64_t context, int64_t d_model, const at::TensorOptions& options)
      : block_(block) {
    auto add = [&](const at::Tensor& weight, const at::Tensor& bias, int64_t width) {
      caches_.emplace_back(weight, bias, torch::zeros({batch, context, width}, options));
    };
    if (block.conv) {
      add(block.conv->appliedWeight(), block.conv->bias, d_model);
    } else if (block.expanded) {
      auto& e = *block.expanded;
      add(e.conv0->maskedWeight(), e.conv0->bias, d_model);  // normed inputs -> intermediate channels
      add(e.conv2->maskedWeight(), e.conv2->bias, d_model);  // GELU'd channels -> outputs
    } else {
      auto& head = *block.mixerhead;
      if (head.compat()) {
        auto* last = head.convs[head.convs->size() - 1]->as<MaskedTokenConv>();
        add(last->appliedWeight(), last->bias, d_model);
      } else {
        for (size_t h = 0; h < head.convs->size(); ++h) {
          auto* conv = head.convs[h]->as<MaskedTokenConv>();
          add(conv->appliedWeight(), conv->bias, head.proj_head[h]->as<torch::nn::Linear>()->weight.size(0));
        }
      }
    }
  }

  // x: the block input at positions first..first+L-1 ([B, L, D]); returns the block output there.
  at::Tensor forward(const at::Tensor& x, int64_t first) {
    auto normed = block_.seq_layernorm ? block_.seq_layernorm->forward(x) : x;
    auto mixed = mix(normed, first);
    auto h = block_.residual() ? x + mixed : mixed;
    if (!block_.patch_ff) return h;
    auto ff = block_.feedForward(block_.patch_layernorm ? block_.patch_layernorm->forward(h) : h);
    return block_.residual() ? h + ff : ff;
  }

  // Whether forwardRow applies: the flat, kernel-1 mixer.
  bool mixesRows() const { return block_.conv && caches_[0].mixesRows(); }

  // This block as the fused step reads it, or nothing when it is not a plain fp32 CPU block of the
  // kinds the step covers (flat kernel-1 mix; Linear, GELU or nothing, Linear feed-forward).
  std::optional<MixerRowLayer> rowLayer() const {
    if (!mixesRows()) return std::nullopt;
    const MixCache& cache = caches_[0];
    MixerRowLayer layer;
    layer.mix_weight = cache.weight_2d.contiguous();
    layer.rows = cache.rows_2d;
    layer.mix_bias.assign(cache.bias_values.begin(), cache.bias_values.end());
    layer.residual = block_.residual();
    if (!plainFloat(layer.mix_weight) || !plainFloat(layer.rows) ||
        !describeNorm(block_.seq_layernorm, layer.has_norm1, layer.norm1_weight, layer.norm1_bias, layer.norm1_eps) ||
        !describeNorm(block_.patch_layernorm, layer.has_norm2, layer.norm2_weight, layer.norm2_bias, layer.norm2_eps)) {
      return std::nullopt;
    }
    const auto ff = block_.feedForwardProducts();
    layer.feed_forward = ff.has_value();
    if (!layer.feed_forward) return layer;
    layer.gelu = ff->gelu;
    layer.ff1_weight = ff->in->weight;
    layer.ff1_bias = ff->in->bias;
    layer.ff2_weight = ff->out->weight;
    layer.ff2_bias = ff->out->bias;
    const bool plain = plainFloat(layer.ff1_weight) && plainFloatOrAbsent(layer.ff1_bias) &&
                       plainFloat(layer.ff2_weight) && plainFloatOrAbsent(layer.ff2_bias);
    if (!plain) return std::nullopt;
    return layer;
  }

  // One new row per sequence ([B, D]) through the flat kernel-1 block: about a dozen small ops
  // (matrix-vector products for a batch of one), against some thirty on the general path, and the
  // mix pushes rows from the window's middle on, as for one sequence.
  at::Tensor forwardRow(const at::Tensor& x, int64_t first) { return forwardRowWith(x, first, {}); }
  // The same with the position as a device tensor: the static step (graphed_step.h).
  at::Tensor forwardRowAt(const at::Tensor& x, const at::Tensor& position) { return forwardRowWith(x, 0, position); }

 private:
  at::Tensor forwardRowWith(const at::Tensor& x, int64_t first, const at::Tensor& position) {
    const at::Tensor normed = block_.seq_layernorm ? block_.seq_layernorm->forward(x) : x;
    auto h = position.defined() ? caches_[0].mixRowAt(normed, position) : caches_[0].mixRow(normed, first);
    if (block_.residual()) h.add_(x);
    const auto products = block_.feedForwardProducts();
    if (!products) return h;
    auto ff = rowFeedForward(*products, block_.patch_layernorm ? block_.patch_layernorm->forward(h) : h);
    if (block_.residual()) ff.add_(h);
    return ff;
  }

  at::Tensor mix(const at::Tensor& normed, int64_t first) {
    if (block_.conv) return caches_[0].mix(normed, first);
    if (block_.expanded) return caches_[1].mix(torch::gelu(caches_[0].mix(normed, first)), first);
    auto& head = *block_.mixerhead;
    std::vector<at::Tensor> parts;
    if (head.compat()) {
      parts.assign(head.convs->size(), caches_[0].mix(normed, first));
    } else {
      for (size_t h = 0; h < head.convs->size(); ++h) {
        parts.push_back(caches_[h].mix(head.proj_head[h]->as<BiasFusedLinearImpl>()->forward(normed), first));
      }
    }
    return head.out_proj->forward(torch::cat(parts, -1));
  }

  MixerBlockImpl& block_;
  std::vector<MixCache> caches_;
};

}  // namespace mixer_cache

using mixer_cache::CachedBlock;
using mixer_cache::plainFloat;
using mixer_cache::plainFloatOrAbsent;

MixerCachedStack::MixerCachedStack(MaskedMixer& model)
    : model_(model), relu_head_(mixerOptions(model.config()).head_activation == "relu") {}

MixerCachedStack::~MixerCachedStack() = default;

int64_t MixerCachedStack::context() const { return model_.config().context_length; }
int64_t MixerCachedStack::vocabSize() const { return model_.wte->weight.size(0); }
c10::Device MixerCachedStack::device() const { return model_.wte->weight.device(); }

void MixerCachedStack::reset(int64_t batch) {
  blocks_.clear();
  const auto options = model_.wte->weight.options();
  for (const auto& item : *model_.mixerblocks) {
    blocks_.emplace_back(*item->as<MixerBlock>(), batch, context(), model_.config().d_model, options);
  }
}

bool MixerCachedStack::mixesRows() const {
  return std::all_of(blocks_.begin(), blocks_.end(), [](const CachedBlock& b) { return b.mixesRows(); });
}

at::Tensor MixerCachedStack::forward(const at::Tensor& ids, int64_t first) {
  at::Tensor x = model_.wte->forward(ids);
  for (auto& block : blocks_) x = block.forward(x, first);
  return logitsOf(x.select(1, ids.size(1) - 1));  // [B, D]
}

at::Tensor MixerCachedStack::forwardRow(const std::vector<int64_t>& ids, int64_t first) {
  // One new row per sequence ([B, D]; for one sequence the embedding row as a view).
  at::Tensor x = ids.size() == 1 ? model_.wte->weight.narrow(0, ids.front(), 1)
                                 : model_.wte->weight.index_select(0, torch::tensor(ids, torch::kLong).to(device()));
  for (auto& block : blocks_) x = block.forwardRow(x, first);
  return logitsOf(x);
}

at::Tensor MixerCachedStack::forwardRowAt(const at::Tensor& ids, const at::Tensor& position) {
  at::Tensor x = model_.wte->weight.index_select(0, ids);  // [B, D]
  for (auto& block : blocks_) x = block.forwardRowAt(x, position);
  return logitsOf(x);
}

std::unique_ptr<MixerRowStep> MixerCachedStack::makeRowStep(std::shared_ptr<kernels::PhaseTeam> team) const {
  std::vector<MixerRowLayer> layers;
  for (const auto& block : blocks_) {
    auto layer = block.rowLayer();
    if (!layer) return nullptr;
    layers.push_back(std::move(*layer));
  }
  MixerRowHead head;
  head.weight = model_.lm_head ? model_.lm_head->weight : model_.wte->weight;
  head.bias = model_.lm_head ? model_.lm_head->bias : at::Tensor();
  head.relu = relu_head_;
  if (layers.empty() || !plainFloat(head.weight) || !plainFloatOrAbsent(head.bias) || !plainFloat(model_.wte->weight)) {
    return nullptr;
  }
  return std::make_unique<MixerRowStep>(std::move(layers), std::move(head), std::move(team));
}

const float* MixerCachedStack::embeddingRow(int64_t id) const {
  const at::Tensor& table = model_.wte->weight;
  return table.data_ptr<float>() + id * table.size(1);
}

at::Tensor MixerCachedStack::logitsOf(at::Tensor x) const {
  if (relu_head_) x = torch::relu(x);
  return decodeLinear(x, model_.lm_head ? model_.lm_head->weight : model_.wte->weight,
                      model_.lm_head ? model_.lm_head->bias : at::Tensor());
}

}  // namespace mixerlab
