// The cached incremental decoder of the masked mixer, over the family's MixerCachedStack
// (core/models/mixers/mixer_cached_stack.h, which owns the arithmetic: row caches per layer, one
// product per new position). The decoder owns the batch, the window (position T-1 is the last),
// the static step replayed as a CUDA graph, and the choice of the fused one-token routine: steps of
// one flat kernel-1 sequence in fp32 on the CPU run as one fused routine (mixer_row_step.h); the
// decode_step compute path "aten" keeps them on the ATen ops, for comparison.
#include <torch/torch.h>

#include "core/analysis/decoders/decode_batch.h"
#include "core/analysis/decoders/decode_step_scope.h"
#include "core/analysis/decoders/graphed_step.h"
#include "core/analysis/decoders/token_decoder.h"
#include "core/models/mixers/masked_mixer.h"
#include "core/models/mixers/mixer_cached_stack.h"
#include "core/models/mixers/mixer_row_step.h"
#include "core/util/error.h"
#include "kernels/phase_team.h"

namespace mixerlab {
namespace {

class CachedMixerDecoder : public TokenDecoder {
 public:
  explicit CachedMixerDecoder(MaskedMixer& model)
      : stack_(model), context_(stack_.context()), step_threads_(rowStepTeamSize(at::get_num_threads())) {}
  std::string name() const override { return "cached-mixer"; }
  std::string stepDescription() const override {
    if (graph_) return graph_->describe();
    if (row_step_) return row_step_->describe();
    return batch_ > 1 ? "ATen ops (a batch of " + std::to_string(batch_) + "; the fused step takes one sequence)"
                      : "ATen ops";
  }

  // Both run in a DecodeStepScope (inference mode, one intra-op thread: the prefill's time is in BLAS
  // products, a step's in the fused team or BLAS); the logits leave it as a plain float64 CPU tensor
  // (converted outside it), so callers may modify them in place.
  at::Tensor prefillBatch(const std::vector<std::vector<int64_t>>& prompts) override {
    const int64_t length = promptBatchLength(prompts, "cached mixer");
    if (length > context_) {
      throw MixerLabError("cached mixer decoding needs 1.." + std::to_string(context_) + " prompt tokens, got " +
                          std::to_string(length));
    }
    std::vector<int64_t> ids = flattenPrompts(prompts);
    checkTokenIds(ids, stack_.vocabSize());
    return runDecodeStep(stack_.device(), true, [&] {
      batch_ = static_cast<int64_t>(prompts.size());
      stack_.reset(batch_);
      length_ = 0;
      rows_only_ = stack_.mixesRows();
      graph_.reset();  // the caches above are new tensors: a graph of the last sequence's would miss them
      row_step_ = batch_ == 1 && !decodeGraphsRequested() ? makeRowStep() : nullptr;
      return run(ids);
    });
  }

  at::Tensor appendBatch(const std::vector<int64_t>& ids) override {
    checkAppendBatch(ids, batch_, "cached mixer");
    checkTokenIds(ids, stack_.vocabSize());
    if (length_ >= context_)
      throw MixerLabError("the mixer's window is full (" + std::to_string(context_) + " tokens)");
    return runDecodeStep(stack_.device(), true, [&] { return run(ids); });
  }

 private:
  // The fused one-token step when the stack covers it and the fused path is requested (the
  // default); null otherwise.
  std::unique_ptr<MixerRowStep> makeRowStep() {
    if (requestedCachedMixerStepPath() != CachedMixerStepPath::kFused) return nullptr;
    if (!team_) team_ = std::make_shared<kernels::PhaseTeam>(step_threads_);
    return stack_.makeRowStep(team_);
  }

  // Logits [B, V] (the model's dtype and device) for the token after `ids` (batch_ rows of equal
  // length, row after row, already checked against the vocabulary), which extend the sequences.
  at::Tensor run(const std::vector<int64_t>& ids) {
    const int64_t length = static_cast<int64_t>(ids.size()) / batch_;
    const bool one_row = length == 1 && rows_only_;
    if (one_row && decodeGraphsRequested()) return staticStep(ids);
    if (one_row && row_step_) {
      const at::Tensor& logits = row_step_->step(stack_.embeddingRow(ids.front()), length_);
      length_ += 1;
      return logits.unsqueeze(0);
    }
    const at::Tensor logits = one_row ? stack_.forwardRow(ids, length_)
                                      : stack_.forward(tokenIdTensor(ids, batch_, stack_.device()), length_);
    length_ += length;
    return logits;
  }

  // One new token per sequence as a static step (graphed_step.h): ids and position in device
  // buffers (the logits in GraphedStep's); on a GPU replayed as a CUDA graph from the second token.
  at::Tensor staticStep(const std::vector<int64_t>& ids) {
    const c10::Device device = stack_.device();
    if (!graph_) {
      const auto index_options = at::TensorOptions().dtype(at::kLong).device(device);
      step_ids_ = at::empty({batch_}, index_options);
      step_position_ = at::empty({1}, index_options);
      graph_ = std::make_unique<GraphedStep>([this] { return stack_.forwardRowAt(step_ids_, step_position_); });
    }
    step_ids_.copy_(torch::tensor(ids, torch::kLong));
    step_position_.fill_(length_);
    const at::Tensor& logits = graph_->run(device);
    length_ += 1;
    return logits;
  }

  MixerCachedStack stack_;
  int64_t context_;
  int step_threads_;  // the fused step's team, from the intra-op thread count when the decoder was made
  int64_t batch_ = 0, length_ = 0;
  bool rows_only_ = false;  // every block mixes one new row at a time (flat kernel-1): set at prefill
  std::shared_ptr<kernels::PhaseTeam> team_;
  std::unique_ptr<MixerRowStep> row_step_;
  std::unique_ptr<GraphedStep> graph_;   // the static step of this batch (decode_graphs=on)
  at::Tensor step_ids_, step_position_;  // its input buffers
};

}  // namespace

std::unique_ptr<TokenDecoder> makeCachedMixerDecoder(LanguageModel& model) {
  auto* mixer = dynamic_cast<MaskedMixer*>(&model);
  if (mixer == nullptr) throw MixerLabError("the cached mixer decoder needs a masked_mixer model");
  return std::make_unique<CachedMixerDecoder>(*mixer);
}

}  // namespace mixerlab
