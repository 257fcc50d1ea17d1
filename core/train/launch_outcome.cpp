// A failed launch's final message and status (see launch_outcome.h).
#include "core/train/launch_outcome.h"

#include "core/runs/run_directory.h"
#include "core/runs/run_log.h"
#include "core/runs/run_status.h"
#include "core/train/checkpoint.h"

namespace mixerlab {

namespace {
// What a resume of the run would start from.
std::string whatIsKept(const RunPaths& paths) {
  std::optional<int64_t> kept_step;
  try {
    if (const auto latest = latestCheckpoint(paths.checkpoints())) kept_step = readTrainerState(*latest).step;
  } catch (const std::exception&) {  // an unreadable checkpoint is no checkpoint to promise
  }
  if (kept_step) {
    return "The last checkpoint (step " + std::to_string(*kept_step) +
           ") is kept: add --resume to continue, with any number of ranks";
  }
  const std::string restart = "Nothing was checkpointed before it, so the run restarts from step 0";
  if (!paths.hasRunInfo()) return restart + ": start the same command again";
  return restart + " (" + paths.root.string() +
         " exists: start it again there with --resume, or with another --run-id)";
}
}  // namespace

std::string recordLaunchOutcome(const LaunchResult& result) {
  if (result.exit_code == 0 || result.run_folder.empty()) return result.message;
  const RunPaths paths{result.run_folder};
  const std::optional<RunStatus> previous = readRunStatus(paths.root);
  std::string message = result.message;
  // A rank that exited on an error of its own: rank 0's words may be that error (a diverged loss
  // ends every rank with code 3), so they stay, after the rank. A rank killed by a signal or stalled
  // left rank 0 only a socket error or nothing to say.
  const bool exited_on_error = !result.stalled && result.signal == 0;
  if (exited_on_error && previous && previous->state == RunState::Failed && !previous->reason.empty()) {
    message += " (rank 0: " + previous->reason + ")";
  }
  try {
    message += ". " + whatIsKept(paths);
  } catch (const std::exception&) {  // the run folder cannot be read: the launcher's words alone
  }
  if (previous && (previous->state == RunState::Finished || previous->state == RunState::Stopped)) {
    return message;  // rank 0 got to the end; its status says how
  }
  try {
    RunStatusRecorder(paths.root)
        .set(RunState::Failed, message, previous ? previous->step : 0, previous ? previous->tokens : 0);
    RunLog(paths.log(), nullptr).error("launch: " + message);
  } catch (const std::exception& e) {
    return message + " (" + paths.status().string() + " could not be updated: " + e.what() + ")";
  }
  return message;
}

}  // namespace mixerlab
