// The status record of a run (status.json): running, finished, failed (with the reason) or
// stopped, plus the process that owns it, so a GUI can tell a live run from one that was killed.
#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace mixerlab {

enum class RunState { Pending, Running, Finished, Failed, Stopped };
std::string runStateName(RunState s);
RunState parseRunState(const std::string& name);

struct RunStatus {
  RunState state = RunState::Pending;
  std::string reason;  // why it failed or stopped
  int64_t step = 0;
  int64_t tokens = 0;
  int64_t pid = 0;
  std::string host;
  std::string updated_at;  // ISO-8601 UTC

  // A "running" record whose process no longer exists on this host (killed): reported as Stopped
  // with reason "process ended without a final status (killed?)".
  RunStatus resolvedForReader() const;
};

void writeRunStatus(const std::filesystem::path& run_dir, const RunStatus& status);  // atomic
std::optional<RunStatus> readRunStatus(const std::filesystem::path& run_dir);
std::optional<RunStatus> readRunStatusFile(const std::filesystem::path& status_file);  // any file name

// The status writer of the process that owns a run: stamps its pid and host on every record.
class RunStatusRecorder {
 public:
  explicit RunStatusRecorder(std::filesystem::path run_dir);
  void set(RunState state, const std::string& reason, int64_t step, int64_t tokens);  // atomic write

 private:
  std::filesystem::path run_dir_;
  RunStatus status_;
};

std::string hostName();
std::string utcTimestamp();

}  // namespace mixerlab
