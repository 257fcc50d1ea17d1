// The reference decoders: one full forward per generated token. The fixed-window method
// (the research's mixer inference, docs/generation.md) keeps the whole T-token window, writes each new token in place
// and reads the logits one position before it; the recompute decoder runs the model on the tokens so
// far (the last T once the window slides). Incremental decoders are tested against these.
#include <torch/torch.h>

#include "core/analysis/decoders/decode_batch.h"
#include "core/analysis/decoders/token_decoder.h"
#include "core/models/mixers/masked_mixer.h"
#include "core/util/error.h"

namespace mixerlab {
namespace {

// Every sequence's logits at `position` ([B, T, V] -> [B, V], float64 on the CPU).
at::Tensor logitsAt(const at::Tensor& logits, int64_t position) {
  return logits.select(1, position).to(torch::kCPU, torch::kFloat64);
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

  // window_: batch_ rows of T ids, filler where nothing is written yet.
  at::Tensor prefillBatch(const std::vector<std::vector<int64_t>>& prompts) override {
    const int64_t length = promptBatchLength(prompts, "fixed-window");
    for (const auto& prompt : prompts) checkTokenIds(prompt, model_.config().vocab_size);
    if (length > context_) {
      throw MixerLabError("fixed-window decoding needs 1.." + std::to_string(context_) + " prompt tokens, got " +
                          std::to_string(length));
    }
    batch_ = static_cast<int64_t>(prompts.size());
    window_.assign(static_cast<size_t>(batch_ * context_), filler_id_);
    for (int64_t b = 0; b < batch_; ++b) std::copy(prompts[b].begin(), prompts[b].end(), slot(b, 0));
    length_ = length;
    return run();
  }

  at::Tensor appendBatch(const std::vector<int64_t>& ids) override {
    checkAppendBatch(ids, batch_, "fixed-window");
    checkTokenIds(ids, model_.config().vocab_size);
    if (length_ >= context_) throw MixerLabError("the fixed window is full (" + std::to_string(context_) + " tokens)");
    for (int64_t b = 0; b < batch_; ++b) *slot(b, length_) = ids[static_cast<size_t>(b)];
    ++length_;
    return run();
  }

 private:
  std::vector<int64_t>::iterator slot(int64_t sequence, int64_t position) {
    return window_.begin() + static_cast<std::ptrdiff_t>(sequence * context_ + position);
  }
  at::Tensor run() {
    auto logits = model_.forward(tokenIdTensor(window_, batch_, device_));
    guard_.restore();
    return logitsAt(logits, length_ - 1);  // the logits one position before the next write
  }

  LanguageModel& model_;
  CompatWeightGuard guard_;
  c10::Device device_;
  int64_t context_, filler_id_, length_ = 0, batch_ = 0;
  std::vector<int64_t> window_;
};

class RecomputeDecoder : public TokenDecoder {
 public:
  explicit RecomputeDecoder(LanguageModel& model)
      : model_(model),
        device_(model.parameters().front().device()),
        slides_(contextPolicy(model) == ContextPolicy::kSlideWindow) {}
  std::string name() const override { return "recompute"; }

  at::Tensor prefillBatch(const std::vector<std::vector<int64_t>>& prompts) override {
    promptBatchLength(prompts, "recompute");
    for (const auto& prompt : prompts) checkTokenIds(prompt, model_.config().vocab_size);
    sequences_ = prompts;
    return run();
  }
  at::Tensor appendBatch(const std::vector<int64_t>& ids) override {
    checkAppendBatch(ids, static_cast<int64_t>(sequences_.size()), "recompute");
    checkTokenIds(ids, model_.config().vocab_size);
    for (size_t b = 0; b < ids.size(); ++b) sequences_[b].push_back(ids[b]);
    return run();
  }

 private:
  at::Tensor run() {
    const int64_t context = model_.config().context_length, length = static_cast<int64_t>(sequences_[0].size());
    const int64_t first = slides_ && length > context ? length - context : 0;
    std::vector<int64_t> windows;
    for (const auto& tokens : sequences_) windows.insert(windows.end(), tokens.begin() + first, tokens.end());
    const auto batch = static_cast<int64_t>(sequences_.size());
    return logitsAt(model_.forward(tokenIdTensor(windows, batch, device_)), length - first - 1);
  }

  LanguageModel& model_;
  c10::Device device_;
  bool slides_;
  std::vector<std::vector<int64_t>> sequences_;  // each sequence's tokens so far
};

}  // namespace

std::unique_ptr<TokenDecoder> makeFixedWindowDecoder(LanguageModel& model, int64_t filler_id) {
  return std::make_unique<FixedWindowDecoder>(model, filler_id);
}

std::unique_ptr<TokenDecoder> makeRecomputeDecoder(LanguageModel& model) {
  return std::make_unique<RecomputeDecoder>(model);
}

}  // namespace mixerlab
