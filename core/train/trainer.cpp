// The training loop (see trainer.h).
#include "core/train/trainer.h"

#include <unistd.h>

#include <chrono>
#include <cmath>

#include <torch/torch.h>

#include "core/models/model_registry.h"
#include "core/train/gradients.h"
#include "core/runs/metrics_log.h"
#include "core/runs/run_directory.h"
#include "core/runs/run_log.h"
#include "core/train/checkpoint.h"
#include "core/train/device.h"
#include "core/train/evaluator.h"
#include "core/train/lr_schedule.h"
#include "core/train/run_data.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"

namespace mixerlab {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

double secondsSince(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

nlohmann::json checkpointConfig(const ProjectConfig& project, const RunConfig& run) {
  nlohmann::json p = project.toJson();
  p.erase("runs");
  return {{"model", run.model.toJson()}, {"run", run.toJson()},    {"project", p},
          {"project_file", project.file.string()}, {"tokenizer", "tokenizer.model"}};
}

// Refuses to resume a run whose stored model differs from the one requested now.
void checkResumableConfig(const RunPaths& paths, const RunConfig& run) {
  if (!fs::exists(paths.runJson())) return;
  auto stored = nlohmann::json::parse(readFile(paths.runJson()));
  const auto& stored_model = stored.at("run").at("model");
  if (stored_model != run.model.toJson()) {
    throw MixerLabError("cannot resume " + paths.root.string() + ": its model config differs from run \"" + run.name +
                            "\" in the project (stored: " + stored_model.dump() + ")",
                        "restore the project's model settings or start a new run with another --run-id");
  }
}

// Refuses to fork from a checkpoint whose model differs from the run's model config.
void checkForkableConfig(const fs::path& checkpoint_dir, const RunConfig& run) {
  const auto stored_model = readCheckpointConfig(checkpoint_dir).at("model");
  if (stored_model != run.model.toJson()) {
    throw MixerLabError("cannot fork run \"" + run.name + "\" from " + checkpoint_dir.string() +
                            ": the checkpoint's model config " + stored_model.dump() +
                            " differs from the run's model config " + run.model.toJson().dump(),
                        "fork with a run whose model settings match the checkpoint; only training settings may differ");
  }
}

// The parent's metrics up to `last_step` become the start of the fork's metrics log. The parent
// run directory is the checkpoint's grandparent (runs/<id>/checkpoints/step-<N>).
void copyParentMetrics(const fs::path& checkpoint_dir, const fs::path& metrics_path, int64_t last_step) {
  const fs::path parent_metrics = checkpoint_dir.parent_path().parent_path() / "metrics.jsonl";
  std::string text;
  if (fs::exists(parent_metrics)) {
    for (const auto& record : readMetrics(parent_metrics)) {
      if (record.step <= last_step) text += record.toJsonLine() + "\n";
    }
  }
  writeFileAtomic(metrics_path, text);
}

void setLearningRate(torch::optim::Optimizer& optimizer, double lr) {
  for (auto& group : optimizer.param_groups()) static_cast<torch::optim::AdamWOptions&>(group.options()).lr(lr);
}

struct Budget {
  const TrainConfig& tc;
  double fractionDone(const TrainerState& s) const {
    double f = 0;
    if (tc.max_steps > 0) f = std::max(f, static_cast<double>(s.step) / tc.max_steps);
    if (tc.max_tokens > 0) f = std::max(f, static_cast<double>(s.tokens) / tc.max_tokens);
    if (tc.max_wall_s > 0) f = std::max(f, s.wall_s / tc.max_wall_s);
    return std::min(f, 1.0);
  }
  bool reached(const TrainerState& s) const { return fractionDone(s) >= 1.0; }
};

}  // namespace

TrainOutcome trainRun(const TrainRequest& req) {
  const ProjectConfig& project = *req.project;
  const RunConfig& run = req.run;
  const TrainConfig& tc = run.train;
  const RunPaths paths{req.run_dir};

  if (fs::exists(paths.runJson()) && !req.resume) {
    throw MixerLabError("run directory " + paths.root.string() + " already exists",
                        "pass --resume to continue it, or choose another --run-id or --out");
  }
  if (req.resume) checkResumableConfig(paths, run);
  const bool forking = !req.fork_from.empty();
  fs::path fork_dir;
  if (forking) {
    if (req.resume) throw MixerLabError("--fork-from and --resume cannot be combined", "fork into a new --run-id");
    fork_dir = resolveCheckpointDir(req.fork_from);
    checkForkableConfig(fork_dir, run);
  }
  fs::create_directories(paths.checkpoints());
  RunLog log(paths.log(), req.on_log);

  RunStatus status;
  status.pid = ::getpid();
  status.host = hostName();
  auto setStatus = [&](RunState state, const std::string& reason, const TrainerState& s) {
    status.state = state;
    status.reason = reason;
    status.step = s.step;
    status.tokens = s.tokens;
    status.updated_at.clear();
    writeRunStatus(paths.root, status);
  };

  TrainerState state;
  try {
    const int threads = configureCpuThreads(tc.threads);
    const c10::Device device = selectDevice(tc.device);
    const std::string device_text = describeDevice(device);
    if (device.is_cpu() && isReferenceBlas(loadedBlasLibrary())) {
      log.warn("LibTorch is using the slow reference BLAS (" + loadedBlasLibrary() +
               "); install libopenblas0-pthread for ~20x faster CPU training");
    }
    torch::manual_seed(tc.seed);
    RunData data = prepareRunData(project, run, [&](const std::string& line) { log.info(line); });
    auto model = buildModel(run.model);
    model->to(device);
    torch::optim::AdamW optimizer(model->parameters(), torch::optim::AdamWOptions(tc.learning_rate)
                                                           .betas({tc.beta1, tc.beta2})
                                                           .eps(tc.adam_eps)
                                                           .weight_decay(tc.weight_decay));
    const auto latest = forking ? std::optional<fs::path>(fork_dir)
                        : req.resume ? latestCheckpoint(paths.checkpoints()) : std::nullopt;
    if (forking) {
      loadModelWeights(*model, fork_dir);
      loadOptimizerState(optimizer, fork_dir);
      restoreRngState(fork_dir);
      state = readTrainerState(fork_dir);
      copyParentMetrics(fork_dir, paths.metrics(), state.step);
      log.info("forked from " + fork_dir.string() + " at step " + std::to_string(state.step));
    } else if (latest) {
      loadModelWeights(*model, *latest);
      loadOptimizerState(optimizer, *latest);
      restoreRngState(*latest);
      state = readTrainerState(*latest);
      truncateMetricsAfterStep(paths.metrics(), state.step);
      log.info("resumed from " + latest->string() + " at step " + std::to_string(state.step));
    } else {
      if (req.resume) log.info("no checkpoint to resume from; starting from step 0");
      truncateMetricsAfterStep(paths.metrics(), -1);
    }

    nlohmann::json run_json = checkpointConfig(project, run);
    run_json["environment"] = environmentInfo(device_text);
    run_json["seed"] = tc.seed;
    run_json["threads"] = threads;
    if (forking) run_json["forked_from"] = {{"checkpoint", fs::absolute(fork_dir).string()}, {"step", state.step}};
    writeFileAtomic(paths.runJson(), run_json.dump(2) + "\n");
    setStatus(RunState::Running, "", state);
    log.info("run " + run.name + ": " + run.model.arch + ", " + std::to_string(model->parameterCount()) +
             " parameters, device " + device_text);

    MetricsWriter metrics(paths.metrics());
    const auto eval_batches = makeEvalBatches(*data.eval_examples, tc.batch_size, tc.eval_batches);
    const int64_t tokens_per_step = tc.batch_size * run.model.context_length * tc.grad_accum_steps;
    const int64_t horizon = tc.scheduleHorizon(tokens_per_step);
    const Budget budget{tc};
    const fs::path tokenizer_model = data.tokenizer_path;
    const nlohmann::json ckpt_config = checkpointConfig(project, run);

    auto writeCheckpoint = [&]() {
      metrics.sync();
      auto dir = saveCheckpoint(paths.checkpoints(), *model, optimizer, state, ckpt_config, tokenizer_model,
                                tc.keep_checkpoints);
      log.info("checkpoint " + dir.filename().string());
    };
    auto runEval = [&]() {
      const double loss = evaluateLoss(*model, eval_batches, device);
      if (!state.best_eval_loss || loss < *state.best_eval_loss) state.best_eval_loss = loss;
      return loss;
    };

    if (state.step == 0) {
      MetricsRecord first;
      first.eval_loss = runEval();
      first.learning_rate = learningRateAt(0, tc.learning_rate, tc.warmup_steps, horizon, tc.schedule, tc.min_lr_ratio);
      metrics.append(first);
      log.info("step 0: eval loss " + std::to_string(*first.eval_loss));
    }

    PrefetchingLoader loader(*data.train_examples, tc.seed, /*shuffle=*/true, state.data_position);
    model->train();
    const double wall_base = state.wall_s;
    const auto session_start = Clock::now();
    auto interval_start = Clock::now();
    double interval_eval_s = 0;
    int64_t interval_tokens = 0;
    int64_t last_eval_step = state.step == 0 ? 0 : -1;
    int64_t last_checkpoint_step = state.step;
    double tokens_per_s = 0;

    while (!budget.reached(state)) {
      if (req.stop_requested && req.stop_requested->load()) {
        writeCheckpoint();
        setStatus(RunState::Stopped, "stop requested", state);
        log.info("stopped at step " + std::to_string(state.step));
        return {RunState::Stopped, "stop requested", state.step, state.best_eval_loss};
      }
      const double lr = learningRateAt(state.step, tc.learning_rate, tc.warmup_steps, horizon, tc.schedule, tc.min_lr_ratio);
      setLearningRate(optimizer, lr);
      clearGradients(model->parameters());
      double step_loss = 0;
      for (int64_t micro = 0; micro < tc.grad_accum_steps; ++micro) {
        auto [batch, next_position] = loader.next();
        auto logits = model->forward(batch.input_ids.to(device));
        auto loss = model->loss(logits, batch.labels.to(device));
        const double value = loss.item<double>();
        if (!std::isfinite(value)) {
          const std::string reason = "loss became " + std::string(std::isnan(value) ? "NaN" : "infinite") + " at step " +
                                     std::to_string(state.step + 1) + " (learning rate " + std::to_string(lr) +
                                     "); the last good checkpoint is kept: lower train.learning_rate, raise "
                                     "train.warmup_steps or set train.grad_clip_norm, then --resume";
          setStatus(RunState::Failed, reason, state);
          log.error(reason);
          return {RunState::Failed, reason, state.step, state.best_eval_loss};
        }
        (loss / static_cast<double>(tc.grad_accum_steps)).backward();
        step_loss += value / static_cast<double>(tc.grad_accum_steps);
        state.data_position = next_position;
        state.tokens += batch.num_tokens;
        interval_tokens += batch.num_tokens;
      }
      if (tc.grad_clip_norm > 0) torch::nn::utils::clip_grad_norm_(model->parameters(), tc.grad_clip_norm);
      optimizer.step();
      state.step += 1;
      state.pending_loss_sum += step_loss;
      state.pending_loss_steps += 1;
      state.wall_s = wall_base + secondsSince(session_start);

      const bool final_step = budget.reached(state);
      const bool log_due = state.step % tc.log_every == 0 || final_step;
      const bool eval_due = (tc.eval_every > 0 && state.step % tc.eval_every == 0) || final_step;
      if (log_due || eval_due) {
        MetricsRecord record;
        record.step = state.step;
        record.tokens = state.tokens;
        record.learning_rate = lr;
        if (log_due && state.pending_loss_steps > 0) {
          record.train_loss = state.pending_loss_sum / static_cast<double>(state.pending_loss_steps);
          state.pending_loss_sum = 0;
          state.pending_loss_steps = 0;
          const double train_s = secondsSince(interval_start) - interval_eval_s;
          tokens_per_s = train_s > 0 ? static_cast<double>(interval_tokens) / train_s : 0;
          interval_start = Clock::now();
          interval_eval_s = 0;
          interval_tokens = 0;
        }
        if (eval_due) {
          const auto eval_start = Clock::now();
          record.eval_loss = runEval();
          interval_eval_s += secondsSince(eval_start);
          last_eval_step = state.step;
          log.info("step " + std::to_string(state.step) + ": eval loss " + std::to_string(*record.eval_loss));
        }
        state.wall_s = wall_base + secondsSince(session_start);
        record.wall_s = state.wall_s;
        record.tokens_per_s = tokens_per_s;
        metrics.append(record);
        if (req.on_progress) {
          TrainProgress p;
          p.step = state.step;
          p.max_steps = tc.max_steps;
          p.tokens = state.tokens;
          p.wall_s = state.wall_s;
          p.fraction_done = budget.fractionDone(state);
          p.train_loss = record.train_loss;
          p.eval_loss = record.eval_loss;
          p.learning_rate = lr;
          p.tokens_per_s = tokens_per_s;
          req.on_progress(p);
        }
      }
      if (tc.checkpoint_every > 0 && state.step % tc.checkpoint_every == 0 && !final_step) {
        writeCheckpoint();
        last_checkpoint_step = state.step;
      }
    }
    (void)last_eval_step;
    if (last_checkpoint_step != state.step || !latestCheckpoint(paths.checkpoints())) writeCheckpoint();
    setStatus(RunState::Finished, "", state);
    log.info("finished at step " + std::to_string(state.step) + ", best eval loss " +
             (state.best_eval_loss ? std::to_string(*state.best_eval_loss) : std::string("n/a")));
    return {RunState::Finished, "", state.step, state.best_eval_loss};
  } catch (const std::exception& e) {
    const std::string reason = e.what();
    try {
      setStatus(RunState::Failed, reason, state);
      log.error(reason);
    } catch (...) {
    }
    throw;
  }
}

}  // namespace mixerlab
