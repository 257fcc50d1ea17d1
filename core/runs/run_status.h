// The status record of a run (status.json): running, finished, failed (with the reason) or
// stopped, plus the process that owns it, so a GUI can tell a live run from one that was killed.
#pragma once
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "core/runs/space_reserve.h"

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
// A final state (finished, failed, stopped) is always written, even on a full disk: the space
// reserve (when taken) is released first, and when no new file fits even so, status.json is
// rewritten in place (within the blocks it already holds, the reason shortened if need be).
class RunStatusRecorder {
 public:
  explicit RunStatusRecorder(std::filesystem::path run_dir);
  // Sets aside SpaceReserve::kRunReserveBytes in the run folder (.final-status-reserve) for the
  // final status; released when a final state is written or the recorder ends. Throws
  // MixerLabError when the disk has no room for it (the run can go on without).
  void reserveSpaceForFinalStatus();
  // Atomic write; for a final state, the fallbacks above. Throws MixerLabError when nothing could be written.
  void set(RunState state, const std::string& reason, int64_t step, int64_t tokens);

 private:
  std::filesystem::path run_dir_;
  RunStatus status_;
  std::unique_ptr<SpaceReserve> reserve_;
};

// The last resort for a final status on a disk too full for a new file: rewrites status.json in
// place, within the bytes its blocks already hold (the reason shortened to fit), so no block is
// allocated. Not atomic: a reader at that instant may see a torn record. Throws MixerLabError.
void overwriteRunStatusInPlace(const std::filesystem::path& run_dir, const RunStatus& status);

std::string hostName();
std::string utcTimestamp();

}  // namespace mixerlab
