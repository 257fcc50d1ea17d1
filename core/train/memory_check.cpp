// Training memory estimate and check (see memory_check.h).
#include "core/train/memory_check.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "core/models/model_cost.h"
#include "core/models/model_registry.h"
#include "core/util/error.h"
#include "kernels/environment/process_environment.h"

namespace mixerlab {
namespace {

double availableMemoryBytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  double kib = 0;
  std::string unit;
  while (meminfo >> key >> kib >> unit) {
    if (key == "MemAvailable:") return kib * 1024.0;
  }
  return 0;
}

std::string gib(double bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f GiB", bytes / (1024.0 * 1024.0 * 1024.0));
  return text;
}

}  // namespace

MemoryEstimate estimateTrainingMemory(const RunConfig& run) {
  const ModelCost cost = estimateCost(run.model, run.train.batch_size);
  MemoryEstimate e;
  e.needed_bytes = cost.weight_bytes + cost.gradient_bytes + cost.optimizer_bytes + cost.activation_bytes;
  e.available_bytes = availableMemoryBytes();
  e.breakdown = "weights " + gib(cost.weight_bytes) + ", gradients " + gib(cost.gradient_bytes) + ", AdamW state " +
                gib(cost.optimizer_bytes) + ", activations at batch " + std::to_string(run.train.batch_size) + " " +
                gib(cost.activation_bytes);
  return e;
}

void checkTrainingFitsInMemory(const RunConfig& run) {
  if (kernels::environmentValue(kernels::EnvironmentVariable::kSkipMemoryCheck) == "1") return;
  const MemoryEstimate e = estimateTrainingMemory(run);
  if (e.available_bytes <= 0 || e.needed_bytes <= e.available_bytes) return;
  throw MixerLabError("run \"" + run.name + "\" needs about " + gib(e.needed_bytes) + " to train (" + e.breakdown +
                          ") but this machine has " + gib(e.available_bytes) + " available",
                      "lower train.batch_size (raise grad_accum_steps to keep the effective batch), model.d_model, "
                      "model.n_layers or model.context_length; MIXERLAB_SKIP_MEMORY_CHECK=1 trains anyway");
}

}  // namespace mixerlab
