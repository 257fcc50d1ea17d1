// KV-cache decoding for the families whose registry entry names it: every layer keeps the keys and
// values of earlier positions (the family's IncrementalStack, core/models/incremental_stack.h, owns
// that arithmetic), so a new token costs one row of attention per layer. This decoder owns the rest:
// batches of B sequences (prompts of one length, stepped together), the window (kSlideWindow families
// rebuild the caches from the last T tokens for every new one, the window the recompute reference
// sees; kStopAtWindowEnd families stop at T), and the static step (positions in device tensors)
// that a GPU replays as a CUDA graph (graphed_step.h, ComputePaths::decode_graphs).
#include <torch/torch.h>

#include "core/analysis/decoders/decode_batch.h"
#include "core/analysis/decoders/decode_step_scope.h"
#include "core/analysis/decoders/graphed_step.h"
#include "core/analysis/decoders/token_decoder.h"
#include "core/models/incremental_stack.h"
#include "core/models/model_registry.h"
#include "core/util/error.h"

namespace mixerlab {
namespace {

class KvCacheDecoder : public TokenDecoder {
 public:
  KvCacheDecoder(LanguageModel& model, std::unique_ptr<IncrementalStack> stack)
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
  std::unique_ptr<IncrementalStack> stack_;
  int64_t context_, vocab_;
  bool slides_;
  int64_t length_ = 0;
  std::vector<std::vector<int64_t>> sequences_;  // each sequence's tokens so far
  std::unique_ptr<GraphedStep> graph_;           // the static step (MIXERLAB_DECODE_GRAPHS=on)
  at::Tensor step_ids_, step_position_;          // its input buffers
};

}  // namespace

std::unique_ptr<TokenDecoder> makeKvCacheDecoder(LanguageModel& model) {
  return std::make_unique<KvCacheDecoder>(model, makeFamilyStep(model, &GenerationSupport::make_stack, "make_stack"));
}

}  // namespace mixerlab
