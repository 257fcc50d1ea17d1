// RunSummary: what a runs table shows about one run (status, progress, losses, throughput, model
// and device), derived in this one place from status.json, metrics.jsonl and run.json (or, for a
// retrieval-model run, retrieval_run.json). One-shot readers call summarizeRun(); live readers keep
// a RunSummary and feed it the records they tail, so "best eval loss" and "last train loss" mean
// the same everywhere.
#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "core/runs/metrics_log.h"
#include "core/runs/retrieval_run_record.h"
#include "core/runs/run_info.h"
#include "core/runs/run_status.h"

namespace mixerlab {

struct RunSummary {
  RunState state = RunState::Pending;
  std::string reason;  // why it failed or stopped
  int64_t step = 0;
  int64_t tokens = 0;
  double wall_s = 0;
  // The run's throughput: its tokens over its training wall clock so far (evaluations and
  // checkpoints included, as a comparison at equal wall clock counts them); the last interval's
  // rate is recent_tokens_per_s (it swings with evaluations and with other work on the machine).
  double tokens_per_s = 0;
  double recent_tokens_per_s = 0;  // the latest non-zero interval throughput reported
  std::optional<double> best_eval_loss, last_train_loss, last_eval_loss;
  std::string arch, device;  // from run.json; empty until the run has written it

  // Folds in one metrics record (in log order).
  void add(const MetricsRecord& record);
  // Forgets the metrics (the log shrank: a resume truncated it); keeps status and run info.
  void resetMetrics();
  // Takes state and reason from a status record (resolved for readers: a killed run reads as
  // stopped); step and tokens only move forward from it, the metrics log may be ahead.
  void applyStatus(const RunStatus& status);
  void applyRunInfo(const RunInfo& info);
  // A retrieval-model run (retrieval_run.json instead of run.json): arch describes it.
  void applyRetrievalRun(const RetrievalRunRecord& record);
};

// The summary of one run directory, read now (a torn last metrics line is ignored).
RunSummary summarizeRun(const std::filesystem::path& run_dir);

}  // namespace mixerlab
