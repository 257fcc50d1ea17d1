// The benchmarks' training step on random tokens (see bench_step.h): runTrainStep on a fixed batch.
#include "app/cli/bench_step.h"

#include <optional>

#include <torch/torch.h>

#include "core/distributed/gradient_sync.h"
#include "core/models/model_registry.h"
#include "core/train/checkpoint.h"
#include "core/train/loss_scaler.h"

namespace mixerlab::cli {

namespace {
constexpr double kLearningRate = 5e-4;
}  // namespace

struct RandomTokenTrainer::State {
  State(const ModelConfig& config, const c10::Device& d)
      : model((torch::manual_seed(0), buildModel(config))), device(d) {
    model->to(device);
    model->train();
    optimizer.emplace(model->parameters(), torch::optim::AdamWOptions(kLearningRate));
    train.grad_accum_steps = 1;
    train.grad_clip_norm = 1.0;
  }
  LanguageModelPtr model;
  c10::Device device;
  Precision precision = Precision::Fp32;
  std::optional<torch::optim::AdamW> optimizer;
  std::optional<DynamicLossScaler> scaler;
  ProcessGroup* group = nullptr;
  std::unique_ptr<GradientSync> sync;
  TrainConfig train;   // one micro-batch, clipping at 1.0
  TrainerState state;  // tokens and data position, advanced by the step as the trainer's are
  Batch batch;         // the fixed random tokens: input and labels (the models shift)
};

RandomTokenTrainer::RandomTokenTrainer(const ModelConfig& model, int64_t local_batch, const c10::Device& device,
                                       Precision precision, ProcessGroup* group)
    : state_(std::make_unique<State>(model, device)) {
  checkPrecisionSupported(precision, device);
  state_->precision = precision;
  if (precision == Precision::Fp16) state_->scaler.emplace(LossScalerSettings{});
  state_->group = group;
  if (group) state_->sync = std::make_unique<GradientSync>(state_->model->parameters(), *group);
  const at::Tensor ids =
      torch::randint(0, model.vocab_size, {local_batch, model.context_length}, torch::kLong).to(device);
  state_->batch = Batch{ids, ids, ids.numel(), ids.numel()};
}

RandomTokenTrainer::~RandomTokenTrainer() = default;

double RandomTokenTrainer::step(StepPhaseTimes* phases) {
  State& s = *state_;
  const DataParallelStep data_parallel{s.group, s.sync.get()};
  const StepPrecision precision{s.precision, s.scaler ? &*s.scaler : nullptr};
  const StepOutcome outcome = runTrainStep(
      *s.model, *s.optimizer, [&s] { return std::make_pair(s.batch, DataPosition{}); }, s.train, s.device,
      kLearningRate, s.state, s.group ? &data_parallel : nullptr, precision, phases);
  return outcome.non_finite_loss ? *outcome.non_finite_loss : outcome.loss;
}

int64_t RandomTokenTrainer::parameterCount() const { return state_->model->parameterCount(); }

int64_t RandomTokenTrainer::skippedSteps() const { return state_->scaler ? state_->scaler->state().skipped_steps : 0; }

}  // namespace mixerlab::cli
