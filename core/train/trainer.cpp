// The training loop (see trainer.h). How a run starts is in run_start.h, one optimizer step in
// train_step.h, the train-loss window and throughput in train_metrics.h, and the budget and the
// cadence of records, evaluations and checkpoints in train_cadence.h; this file puts them together.
#include "core/train/trainer.h"

#include <chrono>
#include <cmath>
#include <sstream>

#include <unistd.h>

#include <torch/torch.h>

#include "core/models/model_registry.h"
#include "core/runs/metrics_log.h"
#include "core/runs/run_directory.h"
#include "core/runs/run_info.h"
#include "core/runs/run_lock.h"
#include "core/runs/run_log.h"
#include "core/runs/run_status.h"
#include "core/train/checkpoint.h"
#include "core/train/data_parallel_start.h"
#include "core/distributed/gradient_sync.h"
#include "core/train/evaluator.h"
#include "core/train/lr_schedule.h"
#include "core/train/memory_check.h"
#include "core/train/run_data.h"
#include "core/train/run_start.h"
#include "core/train/train_cadence.h"
#include "core/train/train_metrics.h"
#include "core/train/train_step.h"
#include "core/util/error.h"
#include "core/util/folder_name.h"

namespace mixerlab {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

double secondsSince(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// Says which checkpoint a resume would start from: checkpoints are only written with finite
// weights (saveCheckpoint refuses others), so the latest one predates the divergence.
std::string nonFiniteLossReason(double loss, int64_t step, double lr, const fs::path& checkpoints_dir) {
  const auto latest = latestCheckpoint(checkpoints_dir);
  const std::string kept = latest ? "the last checkpoint (step " + std::to_string(readTrainerState(*latest).step) +
                                        ", written before the loss diverged) is kept"
                                  : "no checkpoint was written before it, so a resume starts from step 0";
  return "loss became " + std::string(std::isnan(loss) ? "NaN" : "infinite") + " at step " + std::to_string(step) +
         " (learning rate " + std::to_string(lr) + "); " + kept +
         ": lower train.learning_rate, raise train.warmup_steps or set train.grad_clip_norm, then --resume";
}

// A logged train loss this far above ln(vocabulary), the loss of guessing uniformly, means the run
// has diverged even though the loss is still finite.
constexpr double kDivergedLossOverUniform = 1.5;
constexpr double kStatusEverySeconds = 2.0;  // status.json's step while training, at most this often

// Says where the learning rate decays to, since a time-only budget takes its horizon from epochs.
void logSchedule(const TrainConfig& tc, int64_t horizon, RunLog& log) {
  if (tc.schedule == "constant") return;
  if (horizon <= tc.warmup_steps) {
    log.info("learning rate: constant after warm-up (no schedule horizon)");
  } else if (tc.horizonFromEpochs()) {
    std::ostringstream epochs;
    epochs << tc.schedule_epochs;
    log.info("learning rate: " + tc.schedule + " decay over " + std::to_string(horizon) + " steps (schedule_epochs " +
             epochs.str() + "); the run stops there unless max_wall_s stops it first");
  } else {
    log.info("learning rate: " + tc.schedule + " decay over " + std::to_string(horizon) + " steps");
  }
}

void reportProgress(const TrainRequest& req, const TrainBudget& budget, const TrainerState& state,
                    const MetricsRecord& record) {
  if (!req.on_progress) return;
  TrainProgress p;
  p.step = state.step;
  p.max_steps = req.run.train.max_steps;
  p.tokens = state.tokens;
  p.wall_s = state.wall_s;
  p.fraction_done = budget.fractionDone(state);
  p.train_loss = record.train_loss;
  p.eval_loss = record.eval_loss;
  p.learning_rate = record.learning_rate;
  p.tokens_per_s = record.tokens_per_s;
  req.on_progress(p);
}

// One run from its start to its outcome; `state` is the caller's, so a failure can record it.
TrainOutcome trainSession(const TrainRequest& req, const StartPlan& plan, const RunPaths& paths, RunLog& log,
                          RunStatusRecorder& status, TrainerState& state) {
  const RunConfig& run = req.run;
  const TrainConfig& tc = run.train;
  ProcessGroup* group = req.process_group;
  const bool writer = !group || group->rank() == 0;  // the rank whose metrics and checkpoints count
  TrainDevice device = setUpTrainDevice(tc, log);
  const Precision precision = parsePrecision(tc.precision);
  checkPrecisionSupported(precision, device.device);  // before the data, the model and any checkpoint
  if (group) {  // run.json and the run list say how many ranks trained: "2 ranks x cpu (1 threads, ...)"
    device.description = std::to_string(group->worldSize()) + " ranks x " + device.description;
  }
  if (device.device.is_cpu()) checkTrainingFitsInMemory(run);  // before the data and the model are built
  torch::manual_seed(tc.seed);
  // Rank 0 trains the tokenizer and builds the token cache; the others then find them cached.
  if (group && !writer) group->barrier();
  RunData data = prepareRunData(*req.project, run, [&](const std::string& line) { log.info(line); });
  if (group && writer) group->barrier();
  auto model = buildModel(run.model);
  model->to(device.device);
  torch::optim::AdamW optimizer(model->parameters(), torch::optim::AdamWOptions(tc.learning_rate)
                                                         .betas({tc.beta1, tc.beta2})
                                                         .eps(tc.adam_eps)
                                                         .weight_decay(tc.weight_decay));
  state = restoreRunStart(plan, paths, *model, optimizer, log);
  std::unique_ptr<DynamicLossScaler> loss_scaler;
  if (tc.loss_scaling == "dynamic" || (tc.loss_scaling == "auto" && precision == Precision::Fp16)) {
    LossScalerSettings settings;
    settings.initial_scale = tc.initial_loss_scale;
    settings.growth_interval = tc.loss_scale_growth_interval;
    // A resumed run continues with its saved scale and counters (rank 0's, after the broadcast below).
    loss_scaler = std::make_unique<DynamicLossScaler>(settings, state.loss_scaler ? &*state.loss_scaler : nullptr);
  }
  std::unique_ptr<GradientSync> gradient_sync;
  if (group) {
    synchronizeRunStart(*group, *model, optimizer, state);  // rank 0's weights, optimizer and state
    if (loss_scaler && state.loss_scaler) *loss_scaler = DynamicLossScaler(loss_scaler->settings(), &*state.loss_scaler);
    gradient_sync = std::make_unique<GradientSync>(model->parameters(), *group);
    log.info("data parallel: rank " + std::to_string(group->rank()) + " of " + std::to_string(group->worldSize()) +
             " (" + group->backendName() + "), " + std::to_string(tc.batch_size / group->worldSize()) +
             " of the " + std::to_string(tc.batch_size) + " sequences of every batch, " +
             std::to_string(gradient_sync->bucketCount()) + " gradient buckets");
  }
  const DataParallelStep data_parallel{group, gradient_sync.get()};
  const StepPrecision step_precision{precision, loss_scaler.get()};
  state.loss_scaler = loss_scaler ? std::optional<LossScalerState>(loss_scaler->state()) : std::nullopt;
  if (precision != Precision::Fp32 || loss_scaler) {
    log.info("precision " + tc.precision + (loss_scaler ? ", dynamic loss scaling from " +
                                                                std::to_string(loss_scaler->scale())
                                                          : std::string()));
  }
  recordRunStart(req, plan, paths, device, *model, state);
  status.set(RunState::Running, "", state.step, state.tokens);
  log.info("run " + run.name + ": " + run.model.arch + ", " + std::to_string(model->parameterCount()) +
           " parameters, device " + device.description);

  MetricsWriter metrics(paths.metrics());
  const auto eval_batches = makeEvalBatches(*data.eval_examples, tc.batch_size, tc.eval_batches);
  if (eval_batches.empty()) {
    throw MixerLabError("the eval split gives no example of " + std::to_string(run.model.context_length + 1) +
                            " tokens (model.context_length " + std::to_string(run.model.context_length) +
                            " with train.batch_mode \"" + tc.batch_mode + "\"), so the run would have no eval loss",
                        "use a longer eval text (corpus.eval), a shorter model.context_length, or train.batch_mode "
                        "\"padded\"");
  }
  const EvalWeighting eval_weighting = parseEvalWeighting(tc.eval_weighting);
  const int64_t horizon = tc.scheduleHorizon(tc.batch_size * run.model.context_length * tc.grad_accum_steps,
                                             data.train_examples->numExamples() / tc.batch_size);
  logSchedule(tc, horizon, log);
  const TrainBudget budget{tc, tc.horizonFromEpochs() ? horizon : 0};
  const TrainCadence cadence{tc};
  const nlohmann::json checkpoint_config = runInfoFor(*req.project, run).configJson();
  auto learningRate = [&](int64_t step) {
    return learningRateAt(step, tc.learning_rate, tc.warmup_steps, horizon, tc.schedule, tc.min_lr_ratio);
  };
  auto last_status = Clock::now();
  auto writeCheckpoint = [&]() {
    metrics.sync();
    auto dir = saveCheckpoint(paths.checkpoints(), *model, optimizer, state, checkpoint_config, data.tokenizer_path,
                              tc.keep_checkpoints);
    log.info("checkpoint " + dir.filename().string());
    status.set(RunState::Running, "", state.step, state.tokens);
    last_status = Clock::now();
  };
  const double diverged_loss = kDivergedLossOverUniform * std::log(static_cast<double>(run.model.vocab_size));
  std::string divergence_warning;  // the first sign of divergence, kept for the final status
  auto evaluate = [&]() {
    const double loss = evaluateLoss(*model, eval_batches, device.device, eval_weighting, precision);
    if (!state.best_eval_loss || loss < *state.best_eval_loss) state.best_eval_loss = loss;
    log.info("step " + std::to_string(state.step) + ": eval loss " + std::to_string(loss));
    return loss;
  };
  if (state.step == 0 && writer) {
    MetricsRecord first;
    first.eval_loss = evaluate();
    first.learning_rate = learningRate(0);
    metrics.append(first);
  }

  const BatchShard shard{group ? group->rank() : 0, group ? group->worldSize() : 1};
  PrefetchingLoader loader(*data.train_examples, tc.seed, /*shuffle=*/true, state.data_position, 4, shard);
  model->train();
  const double wall_base = state.wall_s;
  const auto session_start = Clock::now();
  TrainMetricsAccumulator window(state);
  int64_t last_checkpoint_step = state.step;

  while (true) {
    bool reached = budget.reached(state);
    bool stop = req.stop_requested && req.stop_requested->load();
    if (group) {  // every rank ends at the same step (a wall-clock budget or a signal may reach one first)
      reached = anyRank(*group, reached);
      stop = anyRank(*group, stop);
    }
    if (reached) break;
    if (stop) {
      if (writer) writeCheckpoint();
      status.set(RunState::Stopped, "stop requested", state.step, state.tokens);
      log.info("stopped at step " + std::to_string(state.step));
      return {RunState::Stopped, "stop requested", state.step, state.best_eval_loss};
    }
    const double lr = learningRate(state.step);
    const StepOutcome step =
        runTrainStep(*model, optimizer, loader, tc, device.device, lr, state, group ? &data_parallel : nullptr,
                     step_precision);
    if (loss_scaler) state.loss_scaler = loss_scaler->state();
    if (step.non_finite_loss) {
      const std::string reason = nonFiniteLossReason(*step.non_finite_loss, state.step + 1, lr, paths.checkpoints());
      status.set(RunState::Failed, reason, state.step, state.tokens);
      log.error(reason);
      return {RunState::Failed, reason, state.step, state.best_eval_loss};
    }
    window.addTokens(step.tokens);
    window.addStep(step.loss);
    state.step += 1;
    state.wall_s = wall_base + secondsSince(session_start);

    const bool final_step = budget.reached(state);
    const bool log_due = cadence.logDue(state.step, final_step);
    const bool eval_due = writer && cadence.evalDue(state.step, final_step);
    if (log_due || eval_due) {
      MetricsRecord record;
      record.step = state.step;
      record.tokens = state.tokens;
      record.learning_rate = lr;
      if (log_due) {
        record.train_loss = window.takeTrainLoss();
        record.grad_norm = step.grad_norm;
        if (loss_scaler) {  // plotted like any metric: the scale and the overflow-skipped steps so far
          record.extra_metrics["loss_scale"] = loss_scaler->scale();
          record.extra_metrics["skipped_steps"] = static_cast<double>(loss_scaler->state().skipped_steps);
        }
      }
      if (eval_due) {
        const auto eval_start = Clock::now();
        record.eval_loss = evaluate();
        window.addEvalSeconds(secondsSince(eval_start));
      }
      state.wall_s = wall_base + secondsSince(session_start);
      record.wall_s = state.wall_s;
      record.tokens_per_s = window.tokensPerSecond();
      metrics.append(record);
      reportProgress(req, budget, state, record);
      if (record.train_loss && *record.train_loss > diverged_loss && divergence_warning.empty()) {
        divergence_warning = "train loss " + std::to_string(*record.train_loss) + " at step " +
                             std::to_string(state.step) + " is far above ln(vocab) = " +
                             std::to_string(std::log(static_cast<double>(run.model.vocab_size))) +
                             " (guessing uniformly): the run has probably diverged; lower train.learning_rate";
        log.warn(divergence_warning);
      }
      if (secondsSince(last_status) >= kStatusEverySeconds) {
        status.set(RunState::Running, "", state.step, state.tokens);
        last_status = Clock::now();
      }
    }
    if (writer && cadence.checkpointDue(state.step, final_step)) {
      writeCheckpoint();
      last_checkpoint_step = state.step;
    }
  }
  if (group) {  // the ranks must hold the same weights: say so (or warn) in the log
    const double difference = maxWeightDifferenceFromRank0(*group, *model);
    if (difference == 0) {
      log.info("data parallel: every rank holds the same weights at step " + std::to_string(state.step));
    } else {
      log.warn("data parallel: the ranks' weights differ by up to " + std::to_string(difference) + " at step " +
               std::to_string(state.step));
    }
  }
  if (writer && (last_checkpoint_step != state.step || !latestCheckpoint(paths.checkpoints()))) writeCheckpoint();
  status.set(RunState::Finished, divergence_warning.empty() ? "" : "warning: " + divergence_warning, state.step,
             state.tokens);
  log.info("finished at step " + std::to_string(state.step) + ", best eval loss " +
           (state.best_eval_loss ? std::to_string(*state.best_eval_loss) : std::string("n/a")));
  return {RunState::Finished, "", state.step, state.best_eval_loss};
}

}  // namespace

namespace {
// A data-parallel rank other than 0: it writes nothing into the run; the trainer's files go to a
// scratch folder removed when the rank ends. Its start comes from rank 0 (synchronizeRunStart).
TrainOutcome trainFollowerRank(const TrainRequest& req) {
  const fs::path scratch = fs::temp_directory_path() / ("mixerlab-rank" + std::to_string(req.process_group->rank()) +
                                                        "-" + std::to_string(::getpid()));
  struct RemoveScratch {
    fs::path dir;
    ~RemoveScratch() {
      std::error_code ignored;
      fs::remove_all(dir, ignored);
    }
  } remove_scratch{scratch};
  const RunPaths paths{scratch};
  fs::create_directories(paths.checkpoints());
  RunLog log(paths.log(), nullptr);  // rank 0 speaks for the job
  RunStatusRecorder status(paths.root);
  TrainerState state;
  return trainSession(req, StartPlan{}, paths, log, status, state);
}
}  // namespace

TrainOutcome trainRun(const TrainRequest& req) {
  if (req.process_group && req.process_group->rank() != 0) return trainFollowerRank(req);
  const RunPaths paths{req.run_dir};
  requireFolderName(paths.root.filename().string(), "run folder name (--run-id)");
  const RunLock lock(paths.root);            // before anything is read or written: one writer per run
  const StartPlan plan = planRunStart(req);  // throws before anything is written
  fs::create_directories(paths.checkpoints());
  RunLog log(paths.log(), req.on_log);
  for (const fs::path& partial : removePartialCheckpoints(paths.checkpoints())) {
    log.warn("removed " + partial.filename().string() + ", left by a checkpoint write that did not finish");
  }
  RunStatusRecorder status(paths.root);
  TrainerState state;
  // A resume that fails before restoring keeps the step the run had reached.
  if (const auto previous = readRunStatus(paths.root); previous && req.resume) {
    state.step = previous->step;
    state.tokens = previous->tokens;
  }
  try {
    return trainSession(req, plan, paths, log, status, state);
  } catch (const std::exception& e) {
    const std::string reason = e.what();
    try {
      status.set(RunState::Failed, reason, state.step, state.tokens);
      log.errorNotForwarded(reason);  // the caller reports the exception
    } catch (...) {
    }
    throw;
  }
}

}  // namespace mixerlab
