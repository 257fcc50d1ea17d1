// The benchmarks' training step on random tokens (see bench_step.h). Keep the order of operations
// the same as runTrainStep's, so a measured speed is the trainer's speed.
#include "app/cli/bench_step.h"

#include <chrono>
#include <optional>

#include <torch/cuda.h>
#include <torch/torch.h>

#include "core/distributed/gradient_sync.h"
#include "core/models/model_registry.h"
#include "core/train/gradients.h"
#include "core/train/loss_scaler.h"
#include "core/train/multi_tensor_optimizer.h"

namespace mixerlab::cli {

struct RandomTokenTrainer::State {
  State(const ModelConfig& config, const c10::Device& d)
      : model((torch::manual_seed(0), buildModel(config))), device(d) {
    model->to(device);
    model->train();
    optimizer.emplace(model->parameters(), torch::optim::AdamWOptions(5e-4));
  }
  LanguageModelPtr model;
  c10::Device device;
  Precision precision = Precision::Fp32;
  std::optional<torch::optim::AdamW> optimizer;
  std::optional<DynamicLossScaler> scaler;
  std::unique_ptr<GradientSync> sync;
  at::Tensor ids;
};

RandomTokenTrainer::RandomTokenTrainer(const ModelConfig& model, int64_t local_batch, const c10::Device& device,
                                       Precision precision, ProcessGroup* group)
    : state_(std::make_unique<State>(model, device)) {
  checkPrecisionSupported(precision, device);
  state_->precision = precision;
  if (precision == Precision::Fp16) state_->scaler.emplace(LossScalerSettings{});
  if (group) state_->sync = std::make_unique<GradientSync>(state_->model->parameters(), *group);
  state_->ids = torch::randint(0, model.vocab_size, {local_batch, model.context_length}, torch::kLong).to(device);
}

RandomTokenTrainer::~RandomTokenTrainer() = default;

namespace {

// Milliseconds since `since` once the device has finished its queued work; restarts `since`.
double phaseMs(const c10::Device& device, std::chrono::steady_clock::time_point& since) {
  if (device.is_cuda()) torch::cuda::synchronize(device.index());
  const auto now = std::chrono::steady_clock::now();
  const double ms = std::chrono::duration<double, std::milli>(now - since).count();
  since = now;
  return ms;
}

}  // namespace

double RandomTokenTrainer::step(StepPhaseTimes* phases) {
  State& s = *state_;
  auto since = std::chrono::steady_clock::now();
  if (phases) phaseMs(s.device, since);
  const auto parameters = s.model->parameters();
  clearGradients(parameters);
  at::Tensor logits;
  {
    AutocastScope autocast(s.device, s.precision);
    logits = s.model->forward(s.ids);
  }
  auto loss = s.model->loss(atLeastFp32(logits), s.ids);  // the loss is always taken in fp32
  if (phases) phases->forward_ms = phaseMs(s.device, since);
  if (s.sync) s.sync->armForNextBackward();
  (s.scaler ? s.scaler->scaled(loss) : loss).backward();
  if (s.sync) s.sync->finish();
  if (phases) phases->backward_ms = phaseMs(s.device, since);
  if (s.scaler) {
    const bool finite = s.scaler->unscaleAndCheck(parameters);
    s.scaler->update(finite);
    if (!finite) return loss.item<double>();  // skipped, as the trainer skips it
  }
  clipGradientNorm(parameters, 1.0);
  adamwStep(*s.optimizer);
  if (phases) phases->optimizer_ms = phaseMs(s.device, since);
  return loss.item<double>();
}

int64_t RandomTokenTrainer::parameterCount() const { return state_->model->parameterCount(); }

int64_t RandomTokenTrainer::skippedSteps() const { return state_->scaler ? state_->scaler->state().skipped_steps : 0; }

}  // namespace mixerlab::cli
