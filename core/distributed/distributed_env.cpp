// Reading the data-parallel environment variables (see distributed_env.h).
#include "core/distributed/distributed_env.h"

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
}  // namespace

std::optional<DistributedEnv> distributedEnvFromEnvironment() {
  DistributedEnv env;
  env.world_size = integerVariable(EnvironmentVariable::kWorldSize, 1, 1, 1 << 16);
  const auto backend = kernels::environmentValue(EnvironmentVariable::kProcessGroupBackend);
  const bool backend_named = backend && !backend->empty() && *backend != "auto";
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
