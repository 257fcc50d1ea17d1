// Starts and supervises the rank processes of one node of a data-parallel job (`mixerlab launch`):
// each rank is this program again with the torchrun variables set (RANK, WORLD_SIZE, LOCAL_RANK,
// LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT). SIGINT and SIGTERM are passed on to every rank (they
// checkpoint and stop together). When one rank fails (non-zero exit or a signal), the others are
// stopped (SIGTERM, then SIGKILL after a grace period) and the job fails with a message naming the
// rank that ended first and how, so a dead rank never leaves the rest waiting in a collective. A
// rank that stops making progress (no new step in its heartbeats, rank_heartbeat.h, for the stall
// timeout) fails the job too: every rank is killed and the message names the stalled rank
// (rank_watchdog.h). The ranks die with the launcher, even when it is killed by SIGKILL: each gets
// SIGKILL as its parent-death signal (subprocess.h). POSIX only; no Qt, no torch.
#pragma once
#include <string>
#include <vector>

#include "core/distributed/distributed_env.h"

namespace mixerlab {

inline constexpr double kDefaultStallTimeoutS = 240;
// The most ranks one node starts per CPU core (the trainer's thread bound too): more only thrash.
inline constexpr int kMaxRanksPerCore = 4;

struct LaunchPlan {
  std::string program;            // the executable each rank runs (this program)
  std::vector<std::string> args;  // its arguments (e.g. {"train", "project.json", "--run", "mixer"})
  int nproc = 1;                  // ranks on this node
  int nnodes = 1, node_rank = 0;
  std::string master_addr = "127.0.0.1";
  int master_port = 0;  // 0: a free port of this machine (single node only)
  double grace_s = 5;   // how long a rank may take to stop before it is killed
  // How long a rank may go without a new training step before the job fails (<= 0: never). Watched
  // from a rank's first step on; the default is long enough for a slow first step, an evaluation or a
  // checkpoint write (the other ranks wait for rank 0 then), and shorter than the process group's
  // 5-minute collective timeout, so the watchdog, which can tell the stalled rank from those waiting
  // for it, speaks before a waiting rank fails with a socket error.
  double stall_timeout_s = kDefaultStallTimeoutS;
  // The process-group backend the ranks must use: auto (NCCL when every rank has a GPU, else Gloo),
  // gloo or nccl; passed to each rank as MIXERLAB_PROCESS_GROUP_BACKEND (kBackendVariable).
  std::string backend = "auto";
};

struct LaunchResult {
  int exit_code = 0;       // 0 when every rank finished cleanly
  std::string message;     // why the job failed: the rank that ended first and how, or the stalled rank
  bool stalled = false;    // the watchdog failed the job
  int signal = 0;          // the signal that ended the rank named; 0 when it exited (or stalled)
  std::string run_folder;  // the run folder rank 0 reported (when rank 0 ran on this node), else empty
};

// Throws MixerLabError for an impossible plan (nproc < 1, more than maxLocalRanks() ranks, several
// nodes without a master port) before any rank starts, or when a rank cannot be started (naming
// the program and the reason; the ranks already started are stopped first). SIGINT or SIGTERM while
// the ranks start stops the started ones and returns 128 + the signal.
LaunchResult launchRanks(LaunchPlan plan);

int maxLocalRanks();  // kMaxRanksPerCore x this machine's online CPU cores

int freeTcpPort();  // a port nothing listens on now (bind to port 0)

}  // namespace mixerlab
