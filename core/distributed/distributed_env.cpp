// Reading the data-parallel environment variables (see distributed_env.h).
#include "core/distributed/distributed_env.h"

#include <limits>

#include "core/distributed/slurm_node_list.h"
#include "core/util/error.h"
#include "kernels/environment/process_environment.h"

namespace mixerlab {

namespace {
using kernels::EnvironmentVariable;

int integerVariable(EnvironmentVariable variable, int fallback, int min, int max) {
  const char* name = kernels::environmentVariableName(variable);
  const auto text = kernels::environmentValue(variable);
  if (!text) return fallback;
  try {
    size_t used = 0;
    const long value = std::stol(*text, &used);
    if (used == text->size() && value >= min && value <= max) return static_cast<int>(value);
  } catch (const std::exception&) {
  }
  throw MixerLabError("environment variable " + std::string(name) + "=\"" + *text + "\" is not an integer in [" +
                          std::to_string(min) + ", " + std::to_string(max) + "]",
                      "unset it, or let `mixerlab launch` (or torchrun) set it");
}

constexpr int kSlurmFirstPort = 20000, kSlurmPorts = 10000;

// Inside an srun step without torchrun's WORLD_SIZE: the place Slurm gives the task. The batch
// shell has SLURM_PROCID and SLURM_NTASKS too, but no SLURM_STEP_ID: it trains alone.
std::optional<DistributedEnv> slurmStepEnv(bool backend_named) {
  DistributedEnv env;
  env.world_size = integerVariable(EnvironmentVariable::kSlurmNtasks, 1, 1, 1 << 16);
  if (env.world_size == 1 && !backend_named) return std::nullopt;
  env.rank = integerVariable(EnvironmentVariable::kSlurmProcId, 0, 0, env.world_size - 1);
  env.local_rank = integerVariable(EnvironmentVariable::kSlurmLocalId, 0, 0, 1 << 16);
  env.local_world_size = integerVariable(EnvironmentVariable::kSlurmNtasksPerNode, 0, 1, 1 << 16);
  if (env.local_world_size == 0) {
    const auto per_node = kernels::environmentValue(EnvironmentVariable::kSlurmTasksPerNode);
    if (per_node) env.local_world_size = firstSlurmTaskCount(*per_node);
  }
  const auto addr = kernels::environmentValue(EnvironmentVariable::kMasterAddress);
  const auto nodes = kernels::environmentValue(EnvironmentVariable::kSlurmJobNodeList);
  if (addr) {
    env.master_addr = *addr;
  } else if (nodes) {
    env.master_addr = firstSlurmHost(*nodes);
  }
  // One port per job, so two jobs whose first node is the same do not meet.
  const int job = integerVariable(EnvironmentVariable::kSlurmJobId, 0, 0, std::numeric_limits<int>::max());
  env.master_port = integerVariable(EnvironmentVariable::kMasterPort, kSlurmFirstPort + job % kSlurmPorts, 1, 65535);
  return env;
}
}  // namespace

std::optional<DistributedEnv> distributedEnvFromEnvironment() {
  DistributedEnv env;
  const auto backend = kernels::environmentValue(EnvironmentVariable::kProcessGroupBackend);
  const bool backend_named = backend && !backend->empty() && *backend != "auto";
  if (!kernels::environmentValue(EnvironmentVariable::kWorldSize) &&
      kernels::environmentValue(EnvironmentVariable::kSlurmStepId)) {
    std::optional<DistributedEnv> slurm = slurmStepEnv(backend_named);
    if (slurm && backend) slurm->backend = *backend;
    return slurm;
  }
  env.world_size = integerVariable(EnvironmentVariable::kWorldSize, 1, 1, 1 << 16);
  if (env.world_size == 1 && !backend_named) return std::nullopt;
  env.rank = integerVariable(EnvironmentVariable::kRank, -1, 0, env.world_size - 1);
  if (env.rank < 0) {
    throw MixerLabError("WORLD_SIZE=" + std::to_string(env.world_size) + " is set but RANK is not",
                        "set RANK (0 .. WORLD_SIZE-1) for every process, or start them with `mixerlab launch`");
  }
  env.local_rank = integerVariable(EnvironmentVariable::kLocalRank, env.rank, 0, 1 << 16);
  env.local_world_size = integerVariable(EnvironmentVariable::kLocalWorldSize, 0, 1, 1 << 16);
  if (backend) env.backend = *backend;
  if (const auto addr = kernels::environmentValue(EnvironmentVariable::kMasterAddress)) env.master_addr = *addr;
  env.master_port = integerVariable(EnvironmentVariable::kMasterPort, 29500, 1, 65535);
  return env;
}

}  // namespace mixerlab
