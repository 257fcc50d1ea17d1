// Where a process stands in a data-parallel job, from the environment variables torchrun, srun
// wrappers and `mixerlab launch` set: RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT. A
// process without WORLD_SIZE (or with WORLD_SIZE=1) trains alone. Inside an srun step
// (SLURM_STEP_ID set) without WORLD_SIZE, Slurm's own variables give the place: SLURM_PROCID,
// SLURM_NTASKS, SLURM_LOCALID, SLURM_NTASKS_PER_NODE (else SLURM_TASKS_PER_NODE's first count), the
// first host of SLURM_JOB_NODELIST (unless MASTER_ADDR) and port 20000 + SLURM_JOB_ID mod 10000
// (unless MASTER_PORT), so `srun mixerlab train ...` needs no torchrun.
#pragma once
#include <optional>
#include <string>

#include "kernels/environment/process_environment.h"

namespace mixerlab {

struct DistributedEnv {
  int rank = 0, world_size = 1, local_rank = 0;
  int local_world_size = 0;  // LOCAL_WORLD_SIZE: the ranks on this machine; 0 when not given
  std::string master_addr = "127.0.0.1";
  int master_port = 29500;
  std::string backend = "auto";                // MIXERLAB_PROCESS_GROUP_BACKEND: auto, gloo or nccl
  bool isWriter() const { return rank == 0; }  // the rank that writes metrics, logs and checkpoints
};

// The process-group backend a rank must use (auto, gloo or nccl), set by `launch --backend`.
inline constexpr const char* kBackendVariable =
    kernels::environmentVariableName(kernels::EnvironmentVariable::kProcessGroupBackend);

// nullopt when WORLD_SIZE is unset or 1, unless MIXERLAB_PROCESS_GROUP_BACKEND names a backend
// (gloo or nccl, from `launch --backend`): then a one-rank job joins a group too, so the NCCL path
// can be run on one GPU. Throws MixerLabError naming the variable when one is malformed or out of
// range (RANK >= WORLD_SIZE, say).
std::optional<DistributedEnv> distributedEnvFromEnvironment();

}  // namespace mixerlab
