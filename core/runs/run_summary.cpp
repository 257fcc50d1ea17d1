// Run summaries (see run_summary.h).
#include "core/runs/run_summary.h"

#include <algorithm>

#include "core/runs/run_directory.h"

namespace mixerlab {

void RunSummary::add(const MetricsRecord& record) {
  step = record.step;
  tokens = record.tokens;
  wall_s = record.wall_s;
  if (record.tokens_per_s > 0) recent_tokens_per_s = record.tokens_per_s;
  tokens_per_s = wall_s > 0 && tokens > 0 ? static_cast<double>(tokens) / wall_s : recent_tokens_per_s;
  if (record.train_loss) last_train_loss = record.train_loss;
  if (record.eval_loss) {
    last_eval_loss = record.eval_loss;
    if (!best_eval_loss || *record.eval_loss < *best_eval_loss) best_eval_loss = record.eval_loss;
  }
}

void RunSummary::resetMetrics() {
  step = 0;
  tokens = 0;
  wall_s = 0;
  tokens_per_s = 0;
  recent_tokens_per_s = 0;
  best_eval_loss.reset();
  last_train_loss.reset();
  last_eval_loss.reset();
}

void RunSummary::applyStatus(const RunStatus& status) {
  const RunStatus resolved = status.resolvedForReader();
  state = resolved.state;
  reason = resolved.reason;
  step = std::max(step, resolved.step);
  tokens = std::max(tokens, resolved.tokens);
}

void RunSummary::applyRunInfo(const RunInfo& info) {
  arch = info.run.model.arch;
  device = info.device();
}

void RunSummary::applyRetrievalRun(const RetrievalRunRecord& record) {
  arch = record.describe();
  device = record.device;
}

RunSummary summarizeRun(const std::filesystem::path& run_dir) {
  const RunPaths paths{run_dir};
  RunSummary summary;
  for (const auto& record : readMetrics(paths.metrics())) summary.add(record);
  if (const auto status = readRunStatus(run_dir)) summary.applyStatus(*status);
  if (const auto info = tryReadRunInfo(run_dir)) {
    summary.applyRunInfo(*info);
  } else if (const auto retrieval = tryReadRetrievalRunRecord(run_dir)) {
    summary.applyRetrievalRun(*retrieval);
  }
  return summary;
}

}  // namespace mixerlab
