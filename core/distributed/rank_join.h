// Joining the data-parallel job this process was started into (by `mixerlab launch`, torchrun or
// srun), the one way every command does it: the rank's device (each rank of a GPU node takes its
// own GPU), its share of the machine's CPU cores and its process group, with the backend the
// launcher named (or the ranks' vote).
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "core/distributed/distributed_env.h"
#include "core/distributed/process_group.h"

namespace mixerlab {

// The ranks that share this machine's GPUs: LOCAL_WORLD_SIZE, else (a bare srun) local_rank + 1, so
// that only this rank's own GPU index is checked.
int ranksSharingTheGpus(const DistributedEnv& env);
// The ranks that share this machine's cores: LOCAL_WORLD_SIZE, else the whole job (every rank is
// assumed to be on this machine, which never oversubscribes the cores).
int ranksSharingTheCores(const DistributedEnv& env);
// This rank's CPU threads: the cores divided among the ranks that share them, at least 1.
int cpuThreadsPerRank(const DistributedEnv& env, int cores);
// The threads a rank trains with: the command line's --threads when given (0 = every core), else
// the run's own train.threads when set (non-zero), else its share of the machine.
int64_t rankTrainThreads(std::optional<int64_t> command_line_threads, int64_t run_threads, int share_of_cores);

struct JoinedRank {
  DistributedEnv env;
  std::string device;   // this rank's device (rank_device.h), from the requested one
  int cpu_threads = 1;  // cpuThreadsPerRank over this machine's cores
  std::unique_ptr<ProcessGroup> group;
};

// nullopt when this process trains alone (distributedEnvFromEnvironment). Otherwise joins the group
// (blocking until every rank has arrived). Throws MixerLabError when the environment is malformed,
// the ranks outnumber the GPUs, or the group cannot be formed.
std::optional<JoinedRank> joinFromEnvironment(const std::string& requested_device, int64_t cuda_devices);

}  // namespace mixerlab
