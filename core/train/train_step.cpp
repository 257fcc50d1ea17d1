// The language-model training step (see train_step.h).
#include "core/train/train_step.h"

#include <torch/torch.h>

namespace mixerlab {

StepOutcome runTrainStep(LanguageModel& model, torch::optim::Optimizer& optimizer, PrefetchingLoader& loader,
                         const TrainConfig& train, const c10::Device& device, double learning_rate, TrainerState& state,
                         const DataParallelStep* data_parallel, const StepPrecision& precision) {
  return runTrainStep(
      model, optimizer, [&loader] { return loader.next(); }, train, device, learning_rate, state, data_parallel,
      precision);
}

StepOutcome runTrainStep(LanguageModel& model, torch::optim::Optimizer& optimizer, const MicroBatchSource& next_batch,
                         const TrainConfig& train, const c10::Device& device, double learning_rate, TrainerState& state,
                         const DataParallelStep* data_parallel, const StepPrecision& precision,
                         StepPhaseTimes* phases) {
  const int64_t world = data_parallel && data_parallel->group ? data_parallel->group->worldSize() : 1;
  auto next_loss = [&]() -> MicroBatchLoss {
    auto [batch, next_position] = next_batch();
    at::Tensor logits;
    {
      AutocastScope autocast(device, precision.precision);
      logits = model.forward(batch.input_ids.to(device));
    }
    // The loss (log-softmax over the vocabulary) is always taken in fp32.
    MicroBatchLoss part;
    part.loss = model.loss(atLeastFp32(logits), batch.labels.to(device));
    part.tokens = batch.num_tokens;
    part.consumed = [&state, position = next_position, tokens = batch.num_tokens * world] {
      state.data_position = position;
      state.tokens += tokens;
    };
    return part;
  };
  return runOptimizerStep(model.parameters(), optimizer, next_loss,
                          {learning_rate, train.grad_accum_steps, train.grad_clip_norm}, device, data_parallel,
                          precision, phases);
}

}  // namespace mixerlab
