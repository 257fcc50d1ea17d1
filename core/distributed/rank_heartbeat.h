// The heartbeat a data-parallel rank sends to the `mixerlab launch` process that started it, so the
// launcher can fail a job whose rank stopped making progress (rank_launcher.h) and record the job's
// end in the run's status.json. The launcher hands each rank one end of its own Unix datagram socket
// pair (MIXERLAB_LAUNCHER_HEARTBEAT="FD:LAUNCHER_PID"); the rank sends small text datagrams:
//   "step N"     the training step it reached, from a background thread every kHeartbeatInterval,
//                so a rank frozen whole (SIGSTOP) falls silent while one waiting in a collective
//                for a frozen peer keeps beating at the same step;
//   "run PATH"   rank 0's run folder, once.
// Why a socket to the launcher rather than a file in the run folder: the launcher always runs on the
// same host as its ranks (one launcher per node, also when the job is remote), so it needs no shared
// or synchronized file system (a rank of another node has no run folder, and NFS caches file times),
// times each datagram with its own monotonic clock (no clock of another host is compared), and
// learns of a beat at once, without polling files. Without the variable (torchrun, srun, a rank
// started by hand) every call here does nothing. POSIX only; no Qt, no torch.
#pragma once
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "kernels/environment/process_environment.h"

namespace mixerlab {

inline constexpr const char* kHeartbeatVariable =
    kernels::environmentVariableName(kernels::EnvironmentVariable::kLauncherHeartbeat);
inline constexpr std::chrono::milliseconds kHeartbeatInterval{500};

// The rank's side. The first call starts the heartbeat thread; later calls update the step it sends.
void reportTrainingStep(int64_t step);
// Rank 0's side: its run folder (the launcher writes the job's final status there).
void reportRunFolder(const std::filesystem::path& run_dir);

// The launcher's side: one received datagram, or nullopt for one it does not understand.
struct HeartbeatMessage {
  std::optional<int64_t> step;  // "step N"
  std::string run_folder;       // "run PATH"
};
std::optional<HeartbeatMessage> parseHeartbeat(const std::string& datagram);
// The variable's value for a rank whose socket end is `fd`, started by the process `launcher_pid`.
std::string heartbeatVariableValue(int fd, long launcher_pid);

}  // namespace mixerlab
