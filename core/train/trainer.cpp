// The training loop (see trainer.h). How a run starts is in run_start.h, one optimizer step in
// train_step.h, the train-loss window and throughput in train_metrics.h, and the budget and the
// cadence of records, evaluations and checkpoints in train_cadence.h; this file puts them together.
#include "core/train/trainer.h"

#include <chrono>
#include <cmath>
#include <sstream>

#include <unistd.h>

#include <torch/torch.h>

#include "core/data/preparation_lock.h"
#include "core/distributed/gradient_sync.h"
#include "core/distributed/rank_heartbeat.h"
#include "core/distributed/rank_join.h"
#include "core/models/model_registry.h"
#include "core/runs/metrics_log.h"
#include "core/runs/run_directory.h"
#include "core/runs/run_info.h"
#include "core/runs/run_lock.h"
#include "core/runs/run_log.h"
#include "core/runs/run_status.h"
#include "core/train/checkpoint.h"
#include "core/train/data_parallel_start.h"
#include "core/train/device.h"
#include "core/train/evaluator.h"
#include "core/train/lr_schedule.h"
#include "core/train/machine_share.h"
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

// Thrown from the micro-batch source to leave an optimizer step part-way on a stop request.
struct StepAbandoned {};

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
             epochs.str() + "); the run stops there unless its budget stops it first, mid-schedule");
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

// One run from its start to its outcome, in three steps: setUp() builds what the loop needs (the
// device, the data, the model and optimizer restored from the plan, loss scaling, the data-parallel
// group) and records the start; train() steps until the budget is reached or a stop request or a
// non-finite loss ends the run; finish() writes the last checkpoint and the finished status.
// `state` is the caller's, so a failure can record it.
class TrainSession {
 public:
  TrainSession(const TrainRequest& req, const StartPlan& plan, const RunPaths& paths, RunLog& log,
               RunStatusRecorder& status, TrainerState& state)
      : req_(req),
        plan_(plan),
        paths_(paths),
        log_(log),
        status_(status),
        state_(state),
        run_(req.run),
        tc_(req.run.train),
        group_(req.process_group),
        writer_(!group_ || group_->rank() == 0),
        cadence_{tc_},
        diverged_loss_(kDivergedLossOverUniform * std::log(static_cast<double>(run_.model.vocab_size))) {}

  // Builds everything the loop needs, in this order, and records the start (run.json, the status and,
  // for a new run, the step-0 evaluation). Bad input throws before the data or the model is built.
  void setUp() {
    setUpDevice();
    loadData();
    buildModelAndOptimizer();
    setUpLossScaling();
    if (group_) joinDataParallelGroup();
    recordStart();
    prepareEvaluation();
    planSchedule();
    machine_share_ = std::make_unique<MachineShareSampler>(localPeerRanks());
    last_status_ = Clock::now();
    if (state_.step == 0 && writer_) recordFirstEvaluation();
  }

  // Returns nullopt when the budget is reached, else the outcome of a stop request or a failure.
  std::optional<TrainOutcome> train() {
    const BatchShard shard{group_ ? group_->rank() : 0, group_ ? group_->worldSize() : 1};
    PrefetchingLoader loader(*data_.train_examples, tc_.seed, /*shuffle=*/true, state_.data_position, 4, shard);
    model_->train();
    wall_base_s_ = state_.wall_s;
    session_start_ = Clock::now();
    TrainMetricsAccumulator window(state_);
    last_checkpoint_step_ = state_.step;
    const DataParallelStep data_parallel{group_, gradient_sync_.get()};
    const StepPrecision step_precision{precision_, loss_scaler_.get()};

    while (true) {
      if (group_) reportTrainingStep(state_.step);  // the heartbeat `mixerlab launch` watches (rank_heartbeat.h)
      bool reached = budget().reached(state_);
      bool stop = req_.stop_requested && req_.stop_requested->load();
      if (group_) {  // every rank ends at the same step (a wall-clock budget or a signal may reach one first)
        reached = anyRank(*group_, reached);
        stop = anyRank(*group_, stop);
      }
      if (reached) return std::nullopt;
      if (stop) return stopOnRequest();
      const double lr = learningRate(state_.step);
      // A stop asked for between the micro-batches of one step (a long gradient accumulation) drops
      // the step unfinished: the state goes back to its start (so a resume redoes it exactly) and the
      // run stops there. Ranks of a data-parallel job agree on stops at step boundaries only.
      const TrainerState step_start = state_;
      int64_t micro_batches = 0;
      const MicroBatchSource next_batch = [&]() {
        if (!group_ && micro_batches++ > 0 && req_.stop_requested && req_.stop_requested->load()) throw StepAbandoned{};
        return loader.next();
      };
      StepOutcome step;
      try {
        step = runTrainStep(*model_, *optimizer_, next_batch, tc_, device_.device, lr, state_,
                            group_ ? &data_parallel : nullptr, step_precision);
      } catch (const StepAbandoned&) {
        state_ = step_start;
        optimizer_->zero_grad();
        return stopOnRequest();
      }
      if (loss_scaler_) state_.loss_scaler = loss_scaler_->state();
      if (step.non_finite_loss) return failOnNonFiniteLoss(*step.non_finite_loss, lr);
      window.addTokens(step.tokens);
      window.addStep(step.loss);
      state_.step += 1;
      updateWallSeconds();

      const bool final_step = budget().reached(state_);
      recordStepMetrics(step, lr, final_step, window);
      if (tc_.stop_on_divergence && !divergence_warning_.empty()) return failOnDivergence();
      if (writer_ && cadence_.checkpointDue(state_.step, final_step)) {
        writeCheckpoint();
        last_checkpoint_step_ = state_.step;
      }
    }
  }

  // After the budget is reached: the last checkpoint and the finished status (with any divergence warning).
  TrainOutcome finish() {
    if (group_) reportRankAgreement();
    if (writer_ && (last_checkpoint_step_ != state_.step || !latestCheckpoint(paths_.checkpoints()))) {
      writeCheckpoint();
    }
    status_.set(RunState::Finished, divergence_warning_.empty() ? "" : "warning: " + divergence_warning_, state_.step,
                state_.tokens);
    log_.info("finished at step " + std::to_string(state_.step) + ", best eval loss " +
              (state_.best_eval_loss ? std::to_string(*state_.best_eval_loss) : std::string("n/a")));
    return {RunState::Finished, "", state_.step, state_.best_eval_loss};
  }

 private:
  // The device and the precision, checked before the data, the model and any checkpoint.
  void setUpDevice() {
    device_ = setUpTrainDevice(tc_, log_);
    precision_ = resolvePrecision(tc_.precision, device_.device);
    checkPrecisionSupported(precision_, device_.device);
    if (group_) {  // run.json and the run list say how many ranks trained: "2 ranks x cpu (1 threads, ...)"
      device_.description = std::to_string(group_->worldSize()) + " ranks x " + device_.description;
    }
    if (device_.device.is_cpu()) checkTrainingFitsInMemory(run_);  // before the data and the model are built
  }

  // Rank 0 prepares the data (it alone may read the raw corpus) and sends the other ranks where the
  // prepared tokenizer and shards are; they open those and nothing else.
  void loadData() {
    torch::manual_seed(tc_.seed);
    const auto log = [this](const std::string& line) { log_.info(line); };
    PreparedProjectData prepared;
    if (writer_) {
      ProjectDataOptions options;
      options.newline = parseNewlineMode(tc_.newline);
      options.stop = req_.stop_requested;
      options.log = log;
      prepared = prepareProjectData(*req_.project, options);
    }
    if (group_) {
      std::string published = writer_ ? nlohmann::json{{"tokenizer", prepared.tokenizer_path.string()},
                                                       {"train", prepared.train_data.string()},
                                                       {"eval", prepared.eval_data.string()}}
                                            .dump()
                                      : std::string();
      broadcastBytes(*group_, published);
      const auto paths = nlohmann::json::parse(published);
      prepared = {paths.at("tokenizer").get<std::string>(), paths.at("train").get<std::string>(),
                  paths.at("eval").get<std::string>()};
    }
    data_ = openRunData(*req_.project, run_, prepared, log);
  }

  // The model and AdamW, with the weights, optimizer and trainer state the plan starts from.
  void buildModelAndOptimizer() {
    model_ = buildModel(run_.model);
    model_->to(device_.device);
    optimizer_ =
        std::make_unique<torch::optim::AdamW>(model_->parameters(), torch::optim::AdamWOptions(tc_.learning_rate)
                                                                        .betas({tc_.beta1, tc_.beta2})
                                                                        .eps(tc_.adam_eps)
                                                                        .weight_decay(tc_.weight_decay));
    state_ = restoreRunStart(plan_, paths_, *model_, *optimizer_, run_.name, data_.tokenizer_bytes, log_);
  }

  void setUpLossScaling() {
    if (tc_.loss_scaling == "dynamic" || (tc_.loss_scaling == "auto" && precision_ == Precision::Fp16)) {
      LossScalerSettings settings;
      settings.initial_scale = tc_.initial_loss_scale;
      settings.growth_interval = tc_.loss_scale_growth_interval;
      // A resumed run continues with its saved scale and counters (rank 0's, after joinDataParallelGroup).
      loss_scaler_ = std::make_unique<DynamicLossScaler>(settings, state_.loss_scaler ? &*state_.loss_scaler : nullptr);
    }
  }

  // Takes rank 0's weights, optimizer and state, and sets up the gradient reduction.
  void joinDataParallelGroup() {
    synchronizeRunStart(*group_, *model_, *optimizer_, state_);
    if (loss_scaler_ && state_.loss_scaler) {
      *loss_scaler_ = DynamicLossScaler(loss_scaler_->settings(), &*state_.loss_scaler);
    }
    gradient_sync_ = std::make_unique<GradientSync>(model_->parameters(), *group_);
    log_.info("data parallel: rank " + std::to_string(group_->rank()) + " of " + std::to_string(group_->worldSize()) +
              " (" + group_->backendName() + "), " + std::to_string(tc_.batch_size / group_->worldSize()) + " of the " +
              std::to_string(tc_.batch_size) + " sequences of every batch, " +
              std::to_string(gradient_sync_->bucketCount()) + " gradient buckets");
  }

  // run.json, the running status and the log's first lines.
  void recordStart() {
    state_.loss_scaler = loss_scaler_ ? std::optional<LossScalerState>(loss_scaler_->state()) : std::nullopt;
    if (precision_ != Precision::Fp32 || loss_scaler_ || tc_.precision != "fp32") {
      log_.info(
          "precision " + precisionName(precision_) +
          (tc_.precision != precisionName(precision_) ? " (train.precision " + tc_.precision + ")" : std::string()) +
          (loss_scaler_ ? ", dynamic loss scaling from " + std::to_string(loss_scaler_->scale()) : std::string()));
    }
    recordRunStart(req_, plan_, paths_, device_, *model_, state_);
    status_.set(RunState::Running, runningReason(), state_.step, state_.tokens);
    log_.info("run " + run_.name + ": " + run_.model.arch + ", " + std::to_string(model_->parameterCount()) +
              " parameters, device " + device_.description);
  }

  // The metrics log and the eval batches (a run with no eval example is refused).
  void prepareEvaluation() {
    metrics_ = std::make_unique<MetricsWriter>(paths_.metrics());
    eval_batches_ = makeEvalBatches(*data_.eval_examples, tc_.batch_size, tc_.eval_batches);
    if (eval_batches_.empty()) {
      throw MixerLabError("the eval split gives no example of " + std::to_string(run_.model.context_length + 1) +
                              " tokens (model.context_length " + std::to_string(run_.model.context_length) +
                              " with train.batch_mode \"" + tc_.batch_mode + "\"), so the run would have no eval loss",
                          "use a longer eval text (corpus.eval), a shorter model.context_length, or train.batch_mode "
                          "\"padded\"");
    }
    eval_weighting_ = parseEvalWeighting(tc_.eval_weighting);
  }

  // The learning-rate schedule's horizon (also the budget of a time-only run) and what checkpoints record.
  void planSchedule() {
    horizon_ = tc_.scheduleHorizon(tc_.batch_size * run_.model.context_length * tc_.grad_accum_steps,
                                   data_.train_examples->numExamples() / tc_.batch_size);
    logSchedule(tc_, horizon_, log_);
    checkpoint_config_ = runInfoFor(*req_.project, run_).configJson();
  }

  // A new run's metrics start with the untrained model's eval loss at step 0.
  void recordFirstEvaluation() {
    MetricsRecord first;
    first.eval_loss = evaluate();
    first.learning_rate = learningRate(0);
    metrics_->append(first);
  }

  TrainBudget budget() const { return {tc_, tc_.horizonFromEpochs() ? horizon_ : 0}; }

  double learningRate(int64_t step) const {
    return learningRateAt(step, tc_.learning_rate, tc_.warmup_steps, horizon_, tc_.schedule, tc_.min_lr_ratio);
  }

  void updateWallSeconds() { state_.wall_s = wall_base_s_ + secondsSince(session_start_); }

  double evaluate() {
    const double loss = evaluateLoss(*model_, eval_batches_, device_.device, eval_weighting_, precision_);
    if (!state_.best_eval_loss || loss < *state_.best_eval_loss) state_.best_eval_loss = loss;
    log_.info("step " + std::to_string(state_.step) + ": eval loss " + std::to_string(loss));
    return loss;
  }

  void writeCheckpoint() {
    metrics_->sync();
    auto dir = saveCheckpoint(paths_.checkpoints(), *model_, *optimizer_, state_, checkpoint_config_,
                              data_.tokenizer_bytes, tc_.keep_checkpoints);
    log_.info("checkpoint " + dir.filename().string());
    status_.set(RunState::Running, runningReason(), state_.step, state_.tokens);
    last_status_ = Clock::now();
  }

  // The metrics record of a step when one is due (train loss, evaluation), and the progress report.
  void recordStepMetrics(const StepOutcome& step, double lr, bool final_step, TrainMetricsAccumulator& window) {
    const bool log_due = cadence_.logDue(state_.step, final_step);
    const bool eval_due = writer_ && cadence_.evalDue(state_.step, final_step);
    if (!log_due && !eval_due) return;
    MetricsRecord record;
    record.step = state_.step;
    record.tokens = state_.tokens;
    record.learning_rate = lr;
    if (log_due) {
      record.train_loss = window.takeTrainLoss();
      record.grad_norm = step.grad_norm;
      if (machine_share_) {  // a run that shared the machine says so (machine_share.h)
        if (const auto others = machine_share_->sample()) record.extra_metrics["other_cpu_cores"] = *others;
      }
      if (loss_scaler_) {  // plotted like any metric: the scale and the overflow-skipped steps so far
        record.extra_metrics["loss_scale"] = loss_scaler_->scale();
        record.extra_metrics["skipped_steps"] = static_cast<double>(loss_scaler_->state().skipped_steps);
      }
    }
    if (eval_due) {
      const auto eval_start = Clock::now();
      record.eval_loss = evaluate();
      window.addEvalSeconds(secondsSince(eval_start));
    }
    updateWallSeconds();
    record.wall_s = state_.wall_s;
    record.tokens_per_s = window.tokensPerSecond();
    metrics_->append(record);
    reportProgress(req_, budget(), state_, record);
    warnOnDivergence(record);
    if (secondsSince(last_status_) >= kStatusEverySeconds) {
      status_.set(RunState::Running, runningReason(), state_.step, state_.tokens);
      last_status_ = Clock::now();
    }
  }

  // The other ranks of this run on this machine (their CPU use is the run's own, not another's).
  int localPeerRanks() const {
    if (!group_) return 0;
    const auto env = distributedEnvFromEnvironment();
    return env ? std::max(0, ranksSharingTheCores(*env) - 1) : group_->worldSize() - 1;
  }

  // Warns once, at the first logged train loss far above uniform guessing; the finished status keeps it.
  void warnOnDivergence(const MetricsRecord& record) {
    const bool diverged = record.train_loss && *record.train_loss > diverged_loss_;
    if (!diverged || !divergence_warning_.empty()) return;
    divergence_warning_ =
        "train loss " + std::to_string(*record.train_loss) + " at step " + std::to_string(state_.step) +
        " is far above ln(vocab) = " + std::to_string(std::log(static_cast<double>(run_.model.vocab_size))) +
        " (guessing uniformly): the run has probably diverged; lower train.learning_rate";
    log_.warn(divergence_warning_);
    status_.set(RunState::Running, runningReason(), state_.step, state_.tokens);
    last_status_ = Clock::now();
  }

  TrainOutcome stopOnRequest() {
    if (writer_) writeCheckpoint();
    status_.set(RunState::Stopped, "stop requested", state_.step, state_.tokens);
    log_.info("stopped at step " + std::to_string(state_.step));
    return {RunState::Stopped, "stop requested", state_.step, state_.best_eval_loss};
  }

  // train.stop_on_divergence: the run fails at the first sign instead of training on; its last
  // checkpoint (from before the divergence was seen) is kept.
  TrainOutcome failOnDivergence() {
    const std::string reason = "diverged: " + divergence_warning_ + " (train.stop_on_divergence)";
    status_.set(RunState::Failed, reason, state_.step, state_.tokens);
    log_.error(reason);
    return {RunState::Failed, reason, state_.step, state_.best_eval_loss};
  }

  // A running run's status carries the divergence warning once there is one, so the runs table
  // marks the run while it trains, not only when it has finished.
  std::string runningReason() const { return divergence_warning_.empty() ? "" : "warning: " + divergence_warning_; }

  TrainOutcome failOnNonFiniteLoss(double loss, double lr) {
    const std::string reason = nonFiniteLossReason(loss, state_.step + 1, lr, paths_.checkpoints());
    status_.set(RunState::Failed, reason, state_.step, state_.tokens);
    log_.error(reason);
    return {RunState::Failed, reason, state_.step, state_.best_eval_loss};
  }

  // The ranks must hold the same weights: say so (or warn) in the log.
  void reportRankAgreement() {
    const double difference = maxWeightDifferenceFromRank0(*group_, *model_);
    if (difference == 0) {
      log_.info("data parallel: every rank holds the same weights at step " + std::to_string(state_.step));
    } else {
      log_.warn("data parallel: the ranks' weights differ by up to " + std::to_string(difference) + " at step " +
                std::to_string(state_.step));
    }
  }

  const TrainRequest& req_;
  const StartPlan& plan_;
  const RunPaths& paths_;
  RunLog& log_;
  RunStatusRecorder& status_;
  TrainerState& state_;
  const RunConfig& run_;
  const TrainConfig& tc_;
  ProcessGroup* const group_;
  const bool writer_;  // the rank whose metrics and checkpoints count
  const TrainCadence cadence_;
  const double diverged_loss_;

  // Built by setUp(), in this order.
  TrainDevice device_;
  Precision precision_ = Precision::Fp32;
  RunData data_;
  LanguageModelPtr model_;
  std::unique_ptr<torch::optim::AdamW> optimizer_;
  std::unique_ptr<DynamicLossScaler> loss_scaler_;
  std::unique_ptr<GradientSync> gradient_sync_;
  std::unique_ptr<MetricsWriter> metrics_;
  std::unique_ptr<MachineShareSampler> machine_share_;  // other processes' CPU use between log records
  std::vector<Batch> eval_batches_;
  EvalWeighting eval_weighting_{};
  int64_t horizon_ = 0;
  nlohmann::json checkpoint_config_;

  // Kept by the loop (and the finish).
  Clock::time_point last_status_;
  double wall_base_s_ = 0;  // the run's wall-clock seconds before this session
  Clock::time_point session_start_;
  int64_t last_checkpoint_step_ = 0;
  std::string divergence_warning_;  // the first sign of divergence, kept for the final status
};

// One run from its start to its outcome; `state` is the caller's, so a failure can record it.
TrainOutcome trainSession(const TrainRequest& req, const StartPlan& plan, const RunPaths& paths, RunLog& log,
                          RunStatusRecorder& status, TrainerState& state) {
  TrainSession session(req, plan, paths, log, status, state);
  try {
    session.setUp();
  } catch (const PreparationStopped& e) {  // finished shards are kept; the next start resumes after them
    status.set(RunState::Stopped, e.what(), state.step, state.tokens);
    log.info(std::string(e.what()) + "; the prepared shards are kept and the next start continues from them");
    return {RunState::Stopped, e.what(), state.step, std::nullopt};
  }
  if (auto stopped_or_failed = session.train()) return *stopped_or_failed;
  return session.finish();
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
  // What this machine cannot run (a device it lacks, far more threads than its cores) is refused
  // before the run folder exists.
  selectDevice(req.run.train.device);
  requireCpuThreadsFit(req.run.train.threads, "train.threads");
  const RunLock lock(paths.root);            // before anything is read or written: one writer per run
  const StartPlan plan = planRunStart(req);  // throws before anything is written
  fs::create_directories(paths.checkpoints());
  RunLog log(paths.log(), req.on_log);
  for (const fs::path& partial : removePartialCheckpoints(paths.checkpoints())) {
    log.warn("removed " + partial.filename().string() + ", left by a checkpoint write or removal that did not finish");
  }
  // This process owns the run now: `mixerlab launch` may record the job's end in its status.json.
  if (req.process_group) reportRunFolder(paths.root);
  RunStatusRecorder status(paths.root);
  try {  // room for the final status and the log's last line should the disk fill up while it trains
    status.reserveSpaceForFinalStatus();
  } catch (const MixerLabError& e) {
    log.warn(e.what());
  }
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
    try {  // on a full disk too: set() frees the reserve, else rewrites status.json in place
      status.set(RunState::Failed, reason, state.step, state.tokens);
    } catch (...) {  // nothing could be written: the caller still reports the exception
    }
    try {
      log.errorNotForwarded(reason);  // the caller reports the exception
    } catch (...) {
    }
    throw;
  }
}

}  // namespace mixerlab
