// The reference decoders: one full forward per generated token. The fixed-window method of spec 7
// (the research's mixer inference) keeps the whole T-token window, writes each new token in place
// and reads the logits one position before it; the recompute decoder runs the model on the tokens so
// far (the last T once the window slides). Incremental decoders are tested against these.
#include <torch/torch.h>

#include "core/analysis/decoders/token_decoder.h"
#include "core/models/mixers/masked_mixer.h"
#include "core/util/error.h"

namespace mixerlab {
namespace {

at::Tensor lastLogits(const at::Tensor& logits, int64_t position) {
  return logits[0][position].to(torch::kCPU, torch::kFloat64);
}

// softmax_compat convs rewrite their weight at every forward (the research's mechanics); a decoder
// must not change the model, so their weights are put back after each forward.
class CompatWeightGuard {
 public:
  explicit CompatWeightGuard(LanguageModel& model) {
    auto* mixer = dynamic_cast<MaskedMixer*>(&model);
    if (mixer == nullptr) return;
    for (const auto& item : *mixer->mixerblocks) {
      for (auto* conv : item->as<MixerBlock>()->squareConvs()) {
        if (conv->settings().weights == MixWeights::kSoftmaxCompat) saved_.push_back({conv, conv->weight.clone()});
      }
    }
  }
  void restore() {
    torch::NoGradGuard no_grad;
    for (auto& [conv, weight] : saved_) conv->weight.copy_(weight);
  }

 private:
  std::vector<std::pair<MaskedTokenConvImpl*, at::Tensor>> saved_;
};

class FixedWindowDecoder : public TokenDecoder {
 public:
  FixedWindowDecoder(LanguageModel& model, int64_t filler_id)
      : model_(model),
        guard_(model),
        device_(model.parameters().front().device()),
        context_(model.config().context_length),
        filler_id_(filler_id) {}
  std::string name() const override { return "fixed-window"; }

  at::Tensor prefill(const std::vector<int64_t>& ids) override {
    if (ids.empty() || static_cast<int64_t>(ids.size()) > context_) {
      throw MixerLabError("fixed-window decoding needs 1.." + std::to_string(context_) + " prompt tokens, got " +
                          std::to_string(ids.size()));
    }
    window_.assign(context_, filler_id_);
    std::copy(ids.begin(), ids.end(), window_.begin());
    length_ = static_cast<int64_t>(ids.size());
    return run();
  }

  at::Tensor append(int64_t id) override {
    if (length_ >= context_) throw MixerLabError("the fixed window is full (" + std::to_string(context_) + " tokens)");
    window_[length_++] = id;
    return run();
  }

 private:
  at::Tensor run() {
    auto input = torch::tensor(window_, torch::kLong).unsqueeze(0).to(device_);
    auto logits = model_.forward(input);
    guard_.restore();
    return lastLogits(logits, length_ - 1);  // the logits one position before the next write
  }

  LanguageModel& model_;
  CompatWeightGuard guard_;
  c10::Device device_;
  int64_t context_, filler_id_, length_ = 0;
  std::vector<int64_t> window_;
};

class RecomputeDecoder : public TokenDecoder {
 public:
  explicit RecomputeDecoder(LanguageModel& model)
      : model_(model),
        device_(model.parameters().front().device()),
        slides_(contextPolicy(model) == ContextPolicy::kSlideWindow) {}
  std::string name() const override { return "recompute"; }

  at::Tensor prefill(const std::vector<int64_t>& ids) override {
    tokens_ = ids;
    return run();
  }
  at::Tensor append(int64_t id) override {
    tokens_.push_back(id);
    return run();
  }

 private:
  at::Tensor run() {
    const int64_t context = model_.config().context_length, length = static_cast<int64_t>(tokens_.size());
    const int64_t first = slides_ && length > context ? length - context : 0;
    std::vector<int64_t> window(tokens_.begin() + first, tokens_.end());
    auto input = torch::tensor(window, torch::kLong).unsqueeze(0).to(device_);
    return lastLogits(model_.forward(input), static_cast<int64_t>(window.size()) - 1);
  }

  LanguageModel& model_;
  c10::Device device_;
  bool slides_;
  std::vector<int64_t> tokens_;
};

}  // namespace

std::unique_ptr<TokenDecoder> makeFixedWindowDecoder(LanguageModel& model, int64_t filler_id) {
  return std::make_unique<FixedWindowDecoder>(model, filler_id);
}

std::unique_ptr<TokenDecoder> makeRecomputeDecoder(LanguageModel& model) {
  return std::make_unique<RecomputeDecoder>(model);
}

}  // namespace mixerlab
