// Recurrent-state decoding over a family's RecurrentStack (recurrent_stack.h): the prompts in one
// parallel pass, then one token per sequence through the layers' states, so each token costs the
// same however long the text is. The decoder owns the batch, the id checks and, when asked for,
// the CUDA-graph replay of the static step; the arithmetic is the family's.
#include <torch/torch.h>

#include "core/analysis/decoders/decode_batch.h"
#include "core/analysis/decoders/decode_step_scope.h"
#include "core/analysis/decoders/graphed_step.h"
#include "core/analysis/decoders/token_decoder.h"
#include "core/models/model_registry.h"
#include "core/util/error.h"

namespace mixerlab {
namespace {

class RecurrentDecoder : public TokenDecoder {
 public:
  explicit RecurrentDecoder(std::unique_ptr<RecurrentStack> stack) : stack_(std::move(stack)) {}
  std::string name() const override { return "recurrent"; }

  at::Tensor prefillBatch(const std::vector<std::vector<int64_t>>& prompts) override {
    promptBatchLength(prompts, "recurrent");  // refuses prompts of different lengths
    const std::vector<int64_t> ids = flattenPrompts(prompts);
    checkTokenIds(ids, stack_->vocabSize());
    batch_ = static_cast<int64_t>(prompts.size());
    const c10::Device device = stack_->device();
    graph_.reset();  // the family's states are new tensors: a graph of the last sequence's would miss them
    return runDecodeStep(device, true, [&] { return stack_->prefill(tokenIdTensor(ids, batch_, device)); });
  }

  at::Tensor appendBatch(const std::vector<int64_t>& ids) override {
    checkAppendBatch(ids, batch_, "recurrent");
    checkTokenIds(ids, stack_->vocabSize());
    const c10::Device device = stack_->device();
    return runDecodeStep(device, true, [&] {
      if (!decodeGraphsRequested()) return stack_->step(torch::tensor(ids, torch::kLong).to(device));
      if (!graph_) {  // one static step per sequence (graphed_step.h): its buffers keep their addresses
        step_ids_ = at::empty({batch_}, at::TensorOptions().dtype(at::kLong).device(device));
        graph_ = std::make_unique<GraphedStep>([this] { return stack_->step(step_ids_); });
      }
      step_ids_.copy_(torch::tensor(ids, torch::kLong));
      return graph_->run(device);
    });
  }

  std::string stepDescription() const override {
    if (!graph_) return {};
    return graph_->describe();
  }

 private:
  std::unique_ptr<RecurrentStack> stack_;
  int64_t batch_ = 0;
  std::unique_ptr<GraphedStep> graph_;  // the static step of this sequence (decode_graphs=on)
  at::Tensor step_ids_;                 // its input buffer
};

}  // namespace

std::unique_ptr<TokenDecoder> makeRecurrentDecoder(LanguageModel& model) {
  return std::make_unique<RecurrentDecoder>(
      makeFamilyStep(model, &GenerationSupport::make_recurrent, "make_recurrent"));
}

}  // namespace mixerlab
