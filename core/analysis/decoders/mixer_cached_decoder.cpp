// The cached incremental decoder of the masked mixer (issue 9): token mixing is causal and linear,
// so each layer keeps the rows its mixing reads (its normalised inputs; per head their projections;
// for the expanded mixer also the intermediate channels) and computes the new position's output as
// one product over them: O(t*D) per layer per token instead of a full forward. Flat, kernel-k,
// softmax, softmax_compat (one application, as one forward does), expanded and multi-head mixing
// (intended and the research's compat loop) are covered. Position i is absolute: the caller stops at T.
#include <torch/torch.h>

#include "core/analysis/decoders/token_decoder.h"
#include "core/analysis/decoders/token_mix_rows.h"
#include "core/models/mixers/masked_mixer.h"
#include "core/models/mixers/mixer_expanded.h"
#include "core/models/mixers/mixer_head.h"
#include "core/models/mixers/mixer_options.h"
#include "core/util/error.h"

namespace mixerlab {
namespace {
namespace F = torch::nn::functional;

// A conv's applied weight and bias with the cache of the rows it mixes ([1, T, width], filled 0..n-1).
struct MixCache {
  at::Tensor weight, bias, rows;
  at::Tensor mix(const at::Tensor& new_rows, int64_t first) {  // writes rows first.., returns their outputs
    rows.narrow(1, first, new_rows.size(1)).copy_(new_rows);
    return mixTokenRows(weight, bias, rows.narrow(1, 0, first + new_rows.size(1)), first);
  }
};

class CachedBlock {
 public:
  CachedBlock(MixerBlockImpl& block, int64_t context, int64_t d_model, const at::TensorOptions& options)
      : block_(block) {
    auto add = [&](const at::Tensor& weight, const at::Tensor& bias, int64_t width) {
      caches_.push_back(MixCache{weight, bias, torch::zeros({1, context, width}, options)});
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

  // x: the block input at positions first..first+L-1 ([1, L, D]); returns the block output there.
  at::Tensor forward(const at::Tensor& x, int64_t first) {
    auto normed = block_.seq_layernorm ? block_.seq_layernorm->forward(x) : x;
    auto mixed = mix(normed, first);
    auto h = block_.residual() ? x + mixed : mixed;
    if (!block_.patch_ff) return h;
    auto ff = block_.feedForward(block_.patch_layernorm ? block_.patch_layernorm->forward(h) : h);
    return block_.residual() ? h + ff : ff;
  }

 private:
  at::Tensor mix(const at::Tensor& normed, int64_t first) {
    if (block_.conv) return caches_[0].mix(normed, first);
    if (block_.expanded) return caches_[1].mix(torch::gelu(caches_[0].mix(normed, first)), first);
    auto& head = *block_.mixerhead;
    std::vector<at::Tensor> parts;
    if (head.compat()) {
      parts.assign(head.convs->size(), caches_[0].mix(normed, first));
    } else {
      for (size_t h = 0; h < head.convs->size(); ++h) {
        parts.push_back(caches_[h].mix(head.proj_head[h]->as<torch::nn::Linear>()->forward(normed), first));
      }
    }
    return head.out_proj->forward(torch::cat(parts, -1));
  }

  MixerBlockImpl& block_;
  std::vector<MixCache> caches_;
};

class CachedMixerDecoder : public TokenDecoder {
 public:
  explicit CachedMixerDecoder(MaskedMixer& model)
      : model_(model),
        context_(model.config().context_length),
        relu_head_(mixerOptions(model.config()).head_activation == "relu") {}
  std::string name() const override { return "cached-mixer"; }

  at::Tensor prefill(const std::vector<int64_t>& ids) override {
    if (ids.empty() || static_cast<int64_t>(ids.size()) > context_) {
      throw MixerLabError("cached mixer decoding needs 1.." + std::to_string(context_) + " prompt tokens, got " +
                          std::to_string(ids.size()));
    }
    blocks_.clear();
    const auto options = model_.wte->weight.options();
    for (const auto& item : *model_.mixerblocks) {
      blocks_.emplace_back(*item->as<MixerBlock>(), context_, model_.config().d_model, options);
    }
    length_ = 0;
    return run(ids);
  }

  at::Tensor append(int64_t id) override {
    if (length_ >= context_)
      throw MixerLabError("the mixer's window is full (" + std::to_string(context_) + " tokens)");
    return run({id});
  }

 private:
  at::Tensor run(const std::vector<int64_t>& ids) {
    auto input = torch::tensor(ids, torch::kLong).unsqueeze(0).to(model_.wte->weight.device());
    auto x = model_.wte->forward(input);
    for (auto& block : blocks_) x = block.forward(x, length_);
    length_ += static_cast<int64_t>(ids.size());
    x = x.select(1, x.size(1) - 1);  // [1, D]
    if (relu_head_) x = torch::relu(x);
    auto logits = model_.lm_head ? model_.lm_head->forward(x) : F::linear(x, model_.wte->weight);
    return logits[0].to(torch::kCPU, torch::kFloat64);
  }

  MaskedMixer& model_;
  int64_t context_;
  bool relu_head_;
  int64_t length_ = 0;
  std::vector<CachedBlock> blocks_;
};

}  // namespace

std::unique_ptr<TokenDecoder> makeCachedMixerDecoder(LanguageModel& model) {
  auto* mixer = dynamic_cast<MaskedMixer*>(&model);
  if (mixer == nullptr) throw MixerLabError("the cached mixer decoder needs a masked_mixer model");
  return std::make_unique<CachedMixerDecoder>(*mixer);
}

}  // namespace mixerlab
