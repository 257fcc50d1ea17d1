// Starts and supervises the rank processes of one node of a data-parallel job (`mixerlab launch`):
// each rank is this program again with the torchrun variables set (RANK, WORLD_SIZE, LOCAL_RANK,
// LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT). SIGINT and SIGTERM are passed on to every rank (they
// checkpoint and stop together). When one rank fails (non-zero exit or a signal), the others are
// stopped (SIGTERM, then SIGKILL after a grace period) and the job fails with a message naming the
// rank, so a dead rank never leaves the rest waiting in a collective. POSIX only; no Qt, no torch.
#pragma once
#include <string>
#include <vector>

namespace mixerlab {

struct LaunchPlan {
  std::string program;            // the executable each rank runs (this program)
  std::vector<std::string> args;  // its arguments (e.g. {"train", "project.json", "--run", "mixer"})
  int nproc = 1;                  // ranks on this node
  int nnodes = 1, node_rank = 0;
  std::string master_addr = "127.0.0.1";
  int master_port = 0;  // 0: a free port of this machine (single node only)
  double grace_s = 5;   // how long a rank may take to stop before it is killed
};

struct LaunchResult {
  int exit_code = 0;    // 0 when every rank finished cleanly
  std::string message;  // why the job failed (names the rank); empty on success
};

// Throws MixerLabError for an impossible plan (nproc < 1, several nodes without a master port), or
// when a rank cannot be started (naming the program and the reason; the ranks already started are
// stopped first).
LaunchResult launchRanks(LaunchPlan plan);

int freeTcpPort();  // a port nothing listens on now (bind to port 0)

}  // namespace mixerlab
