// The training loop of one run, writing its run directory: AdamW with warmup + decay, gradient
// clipping and accumulation, periodic evaluation, budgets by steps / tokens / wall-clock, atomic
// checkpoints, exact resume, and a clean stop on NaN/inf loss or a stop request.
#pragma once
#include <atomic>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include "core/distributed/process_group.h"

#include "core/config/project_config.h"
#include "core/runs/run_status.h"

namespace mixerlab {

struct TrainProgress {
  int64_t step = 0;
  int64_t max_steps = 0;  // 0 when the budget is tokens or wall-clock only
  int64_t tokens = 0;
  double wall_s = 0;
  double fraction_done = 0;  // of the tightest budget
  std::optional<double> train_loss, eval_loss;
  double learning_rate = 0;
  double tokens_per_s = 0;
};

struct TrainRequest {
  const ProjectConfig* project = nullptr;
  RunConfig run;                  // already with CLI overrides applied
  std::filesystem::path run_dir;  // runs/<run-id>
  bool resume = false;            // continue from the latest checkpoint if there is one
  // Fork: start a NEW run directory from this checkpoint folder (another run's step-<N>/): weights,
  // optimizer, RNG and trainer state are loaded from it, and the parent's metrics up to step N are
  // copied, so the fork draws as one line from step 0. Training settings may differ; the model
  // config must match the checkpoint's. run.json records "forked_from": {"checkpoint", "step"}.
  std::filesystem::path fork_from;
  std::function<void(const std::string&)> on_log;         // human-readable lines (also in log.txt)
  std::function<void(const TrainProgress&)> on_progress;  // after every metrics record
  const std::atomic<bool>* stop_requested = nullptr;      // set by a signal handler or the GUI
  // Data parallel (WORLD_SIZE > 1): this process's group. Rank 0 trains as a single process would
  // and is the only one writing to run_dir; the other ranks receive its start by broadcast, train
  // their shard of every batch and write nothing there (their scratch folder is removed at exit).
  ProcessGroup* process_group = nullptr;
};

struct TrainOutcome {
  RunState state = RunState::Finished;
  std::string reason;
  int64_t step = 0;
  std::optional<double> final_eval_loss;
};

// Runs to completion, stop or failure. Bad input throws MixerLabError before anything is written
// (or, once the run directory exists, is recorded as a failed status and rethrown).
TrainOutcome trainRun(const TrainRequest& request);

}  // namespace mixerlab
