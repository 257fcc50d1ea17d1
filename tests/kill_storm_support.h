// What the crash-safety tests share: the CLI's train arguments, a look into a run's checkpoints
// folder for hidden .partial-/.pruned- folders, the last step a run logged, and metrics records
// stripped of their timing fields so a killed-and-resumed run compares equal to an uninterrupted one.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include <QStringList>

#include "core/runs/metrics_log.h"

namespace mixerlab::testing {

inline QStringList trainArgs(const std::filesystem::path& project, const std::string& run,
                             const std::filesystem::path& out, bool resume) {
  QStringList args{"train", QString::fromStdString(project.string()), "--run", QString::fromStdString(run),
                   "--out", QString::fromStdString(out.string())};
  if (resume) args << "--resume";
  return args;
}

// Whether checkpoints/ holds a folder whose name starts with `prefix` (".partial-", ".pruned-").
inline bool hiddenCheckpointFolderExists(const std::filesystem::path& checkpoints, const std::string& prefix) {
  std::error_code ec;
  for (std::filesystem::directory_iterator it(checkpoints, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().filename().string().rfind(prefix, 0) == 0) return true;
  }
  return false;
}

// The last step in the run's metrics log (its records are appended as each step ends); -1 if none.
inline int64_t lastLoggedStep(const std::filesystem::path& run_dir) {
  const auto records = readMetrics(run_dir / "metrics.jsonl");
  return records.empty() ? -1 : records.back().step;
}

// The records without their timing fields, which differ between any two runs.
inline std::vector<std::string> comparableRecords(const std::vector<MetricsRecord>& records) {
  std::vector<std::string> out;
  for (MetricsRecord r : records) {
    r.wall_s = 0;
    r.tokens_per_s = 0;
    r.extra_metrics.erase("other_cpu_cores");  // how busy the machine was differs run to run, like the times
    out.push_back(r.toJsonLine());
  }
  return out;
}

}  // namespace mixerlab::testing
