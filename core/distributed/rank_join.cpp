// Joining a data-parallel job from the environment (rank_join.h).
#include "core/distributed/rank_join.h"

#include <algorithm>
#include <thread>

#include "core/distributed/rank_device.h"

namespace mixerlab {

int ranksSharingTheGpus(const DistributedEnv& env) {
  return env.local_world_size > 0 ? env.local_world_size : env.local_rank + 1;
}

int ranksSharingTheCores(const DistributedEnv& env) {
  return env.local_world_size > 0 ? env.local_world_size : env.world_size;
}

int cpuThreadsPerRank(const DistributedEnv& env, int cores) {
  return std::max(1, cores / std::max(1, ranksSharingTheCores(env)));
}

int64_t rankTrainThreads(std::optional<int64_t> command_line_threads, int64_t run_threads, int share_of_cores) {
  if (command_line_threads) return *command_line_threads;
  return run_threads != 0 ? run_threads : share_of_cores;
}

std::optional<JoinedRank> joinFromEnvironment(const std::string& requested_device, int64_t cuda_devices) {
  const auto env = distributedEnvFromEnvironment();
  if (!env) return std::nullopt;
  JoinedRank joined;
  joined.env = *env;
  joined.device = rankDevice(requested_device, env->local_rank, ranksSharingTheGpus(*env), cuda_devices);
  joined.cpu_threads = cpuThreadsPerRank(*env, static_cast<int>(std::thread::hardware_concurrency()));
  JoinOptions options;
  options.backend = env->backend;
  if (joined.device.rfind("cuda:", 0) == 0) options.cuda_device = std::stoi(joined.device.substr(5));
  joined.group = ProcessGroup::join(*env, options);
  return joined;
}

}  // namespace mixerlab
