// Refuses a CPU run that cannot fit in memory before anything is allocated: the analytic estimate
// (weights, gradients, AdamW moments and the activations saved for backward at the run's batch size,
// model_cost.h) against the memory this machine has available now. Without it an oversized model
// ends in a raw allocator error, or the machine swaps. MIXERLAB_SKIP_MEMORY_CHECK=1 skips the check.
#pragma once
#include <cstdint>
#include <string>

#include "core/config/project_config.h"

namespace mixerlab {

struct MemoryEstimate {
  double needed_bytes = 0;     // weights + gradients + optimizer state + activations
  double available_bytes = 0;  // MemAvailable from /proc/meminfo; 0 when unknown
  std::string breakdown;       // "weights 1.2 GiB, gradients ..., activations ..."
};

MemoryEstimate estimateTrainingMemory(const RunConfig& run);

// Throws MixerLabError with the estimate, the memory available and what to lower.
void checkTrainingFitsInMemory(const RunConfig& run);

}  // namespace mixerlab
