// Reading the data-parallel environment variables (see distributed_env.h).
#include "core/distributed/distributed_env.h"

#include <cstdlib>

#include "core/util/error.h"

namespace mixerlab {

namespace {
std::optional<std::string> variable(const char* name) {
  const char* value = std::getenv(name);
  if (!value || !*value) return std::nullopt;
  return std::string(value);
}

int integerVariable(const char* name, int fallback, int min, int max) {
  const auto text = variable(name);
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
  env.world_size = integerVariable("WORLD_SIZE", 1, 1, 1 << 16);
  const auto backend = variable(kBackendVariable);
  const bool backend_named = backend && !backend->empty() && *backend != "auto";
  if (env.world_size == 1 && !backend_named) return std::nullopt;
  env.rank = integerVariable("RANK", -1, 0, env.world_size - 1);
  if (env.rank < 0) {
    throw MixerLabError("WORLD_SIZE=" + std::to_string(env.world_size) + " is set but RANK is not",
                        "set RANK (0 .. WORLD_SIZE-1) for every process, or start them with `mixerlab launch`");
  }
  env.local_rank = integerVariable("LOCAL_RANK", env.rank, 0, 1 << 16);
  env.local_world_size = integerVariable("LOCAL_WORLD_SIZE", 0, 1, 1 << 16);
  if (backend) env.backend = *backend;
  if (const auto addr = variable("MASTER_ADDR")) env.master_addr = *addr;
  env.master_port = integerVariable("MASTER_PORT", 29500, 1, 65535);
  return env;
}

}  // namespace mixerlab
