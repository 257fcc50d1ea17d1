// The fused one-token step of the cached mixer (see mixer_row_step.h). Per block: LayerNorm into the
// row cache, the token mix's new row (pulled from the rows so far in the first half of the window,
// pushed into running sums of later positions from the middle on, as MixCache does), residual,
// LayerNorm, then the two feed-forward products with GELU and residual fused into their loops. Each
// product is one PhaseTeam phase, split by output rows; small mixes stay on the calling thread.
#include "core/models/mixers/mixer_row_step.h"

#include <algorithm>
#include <cstring>

#include <ATen/ATen.h>

#include "kernels/environment/compute_paths.h"
#include "kernels/phase_team.h"
#include "kernels/row_kernels.h"

namespace mixerlab {
namespace {

// A product is split only when each part multiplies at least this many weights (below, waking a
// second thread costs more than it saves).
constexpr int64_t kMinWeightsPerPart = 16384;

const float* dataOrNull(const at::Tensor& t) { return t.defined() ? t.data_ptr<float>() : nullptr; }

}  // namespace

CachedMixerStepPath requestedCachedMixerStepPath() { return kernels::activeComputePaths().decode_step; }

int rowStepTeamSize(int intra_op_threads) { return intra_op_threads > 1 ? intra_op_threads + 1 : 1; }

// A layer's tensors (kept alive) and their raw pointers, looked up once rather than in every step.
struct MixerRowStep::LayerState {
  explicit LayerState(MixerRowLayer layer)
      : spec(std::move(layer)),
        mix_weight(spec.mix_weight.data_ptr<float>()),
        rows(spec.rows.data_ptr<float>()),
        norm1_weight(dataOrNull(spec.norm1_weight)),
        norm1_bias(dataOrNull(spec.norm1_bias)),
        norm2_weight(dataOrNull(spec.norm2_weight)),
        norm2_bias(dataOrNull(spec.norm2_bias)),
        ff1_weight(spec.feed_forward ? spec.ff1_weight.data_ptr<float>() : nullptr),
        ff1_bias(dataOrNull(spec.ff1_bias)),
        ff2_weight(spec.feed_forward ? spec.ff2_weight.data_ptr<float>() : nullptr),
        ff2_bias(dataOrNull(spec.ff2_bias)),
        ff_width(spec.feed_forward ? spec.ff1_weight.size(0) : 0) {}
  MixerRowLayer spec;
  const float* mix_weight;
  float* rows;
  const float *norm1_weight, *norm1_bias, *norm2_weight, *norm2_bias;
  const float *ff1_weight, *ff1_bias, *ff2_weight, *ff2_bias;
  int64_t ff_width;
  std::vector<float> sums;  // [T, D] once pushing: row i > the last position holds sum_j W[i, j] rows[j]
  bool pushing = false;
};

MixerRowStep::MixerRowStep(std::vector<MixerRowLayer> layers, MixerRowHead head,
                           std::shared_ptr<kernels::PhaseTeam> team)
    : context_(layers.empty() ? 0 : layers.front().rows.size(0)),
      width_(head.weight.size(1)),
      head_(std::move(head)),
      team_(std::move(team)),
      simd_(kernels::activeRowSimd()) {
  int64_t widest = width_;
  for (auto& layer : layers) {
    if (layer.feed_forward) widest = std::max(widest, layer.ff1_weight.size(0));
    layers_.emplace_back(std::move(layer));
  }
  for (auto* buffer : {&x_, &normed_, &mixed_, &hidden_}) buffer->assign(static_cast<size_t>(width_), 0.0f);
  inner_.assign(static_cast<size_t>(widest), 0.0f);
  logits_ = at::empty({head_.weight.size(0)}, head_.weight.options());
  head_weight_ = head_.weight.data_ptr<float>();
  head_bias_ = dataOrNull(head_.bias);
}

MixerRowStep::~MixerRowStep() = default;

std::string MixerRowStep::describe() const {
  return "fused fp32 step (" + kernels::rowSimdName(simd_) + " products, " + std::to_string(team_->size()) +
         (team_->size() == 1 ? " thread)" : " threads)");
}

void MixerRowStep::mixRow(LayerState& layer, const float* normed, float* out, int64_t position) {
  const int64_t T = context_, D = width_;
  const float* weight = layer.mix_weight;
  const float* rows = layer.rows;
  const float bias = layer.spec.mix_bias.empty() ? 0.0f : layer.spec.mix_bias[static_cast<size_t>(position)];
  if (2 * position < T - 1) {  // pull: out = W[position, :position+1] . rows[:position+1]
    const int64_t count = position + 1;
    const int64_t min_columns = count * D < 2 * kMinWeightsPerPart ? D : 64;
    team_->forRanges(D, min_columns, 16, [&](int64_t begin, int64_t end) {
      kernels::weightedRowSum(weight + position * T, 1, rows, D, count, out, begin, end);
    });
    for (int64_t d = 0; d < D; ++d) out[d] += bias;
    return;
  }
  if (!layer.pushing) {  // once per sequence: the sums of positions position.. over rows 0..position-1
    layer.sums.assign(static_cast<size_t>(T * D), 0.0f);
    if (position > 0) {
      const at::Tensor& w = layer.spec.mix_weight;
      const at::Tensor part =
          at::mm(w.narrow(0, position, T - position).narrow(1, 0, position), layer.spec.rows.narrow(0, 0, position))
              .contiguous();
      std::memcpy(layer.sums.data() + position * D, part.data_ptr<float>(), sizeof(float) * part.numel());
    }
    layer.pushing = true;
  }
  float* sums = layer.sums.data();
  const float diagonal = weight[position * T + position];
  for (int64_t d = 0; d < D; ++d) out[d] = sums[position * D + d] + diagonal * normed[d] + bias;
  const int64_t later = T - 1 - position;  // push: sums[i] += W[i, position] * row for i > position
  team_->forRanges(later, std::max<int64_t>(1, kMinWeightsPerPart / D), 1, [&](int64_t begin, int64_t end) {
    kernels::addScaledRow(weight + (position + 1) * T + position, T, normed, D, sums + (position + 1) * D, begin, end);
  });
}

const at::Tensor& MixerRowStep::step(const float* embedding, int64_t position) {
  const int64_t D = width_;
  const kernels::RowSimd simd = simd_;
  std::copy(embedding, embedding + D, x_.begin());
  for (auto& layer : layers_) {
    const MixerRowLayer& s = layer.spec;
    float* row = layer.rows + position * D;  // this position's mixing input, cached
    if (s.has_norm1) {
      kernels::layerNormRow(x_.data(), D, layer.norm1_weight, layer.norm1_bias, s.norm1_eps, row);
    } else {
      std::copy(x_.begin(), x_.end(), row);
    }
    mixRow(layer, row, mixed_.data(), position);
    if (s.residual) {
      for (int64_t d = 0; d < D; ++d) mixed_[d] += x_[d];
    }
    if (!s.feed_forward) {
      x_.swap(mixed_);
      continue;
    }
    const float* ff_input = mixed_.data();
    if (s.has_norm2) {
      kernels::layerNormRow(mixed_.data(), D, layer.norm2_weight, layer.norm2_bias, s.norm2_eps, normed_.data());
      ff_input = normed_.data();
    }
    const int64_t F = layer.ff_width;
    team_->forRanges(F, kMinWeightsPerPart / D, 16, [&](int64_t begin, int64_t end) {
      kernels::rowMatVec(layer.ff1_weight, D, ff_input, layer.ff1_bias, nullptr, inner_.data(), begin, end, simd);
      if (s.gelu) kernels::geluInPlace(inner_.data(), begin, end);
    });
    const float* skip = s.residual ? mixed_.data() : nullptr;
    team_->forRanges(D, kMinWeightsPerPart / F, 16, [&](int64_t begin, int64_t end) {
      kernels::rowMatVec(layer.ff2_weight, F, inner_.data(), layer.ff2_bias, skip, hidden_.data(), begin, end, simd);
    });
    x_.swap(hidden_);
  }
  if (head_.relu) {
    for (auto& v : x_) v = std::max(v, 0.0f);
  }
  float* logits = logits_.data_ptr<float>();
  team_->forRanges(logits_.numel(), kMinWeightsPerPart / D, 16, [&](int64_t begin, int64_t end) {
    kernels::rowMatVec(head_weight_, D, x_.data(), head_bias_, nullptr, logits, begin, end, simd);
  });
  return logits_;
}

}  // namespace mixerlab
