// `mixerlab bench train --grid` and `mixerlab bench memory`: sweeps of benchmark cells, each cell a
// child process (bench_cells.h). The grid reports speed (ms/step, tokens/s, MFU) and peak memory per
// architecture x d_model x layers; the memory sweep reports peak memory per architecture x context
// length at a fixed number of tokens per step, and the first context that runs out of memory.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "app/cli/cli_commands.h"
#include "core/models/model_registry.h"

namespace mixerlab::cli {

struct GridOptions {
  std::vector<std::string> archs = generatingArchitectures();  // every family that generates text
  std::vector<int64_t> d_models = {256, 512, 1024};
  std::vector<int64_t> layers = {8, 16};
  int64_t context = 512, vocab = 4096, heads = 4, tokens_per_step = 16384;
  AttentionImpl attention = AttentionImpl::kSdpa;
  int64_t steps = 100, warmup = 10, threads = 0;
  std::string device = "cpu", precision = "fp32";
  std::string json_path;      // --json: every cell, written when the grid ends
  double peak_tflops = 0;     // --peak-tflops: overrides the table / the CPU measurement
  double cell_timeout_s = 0;  // 0: no limit
};

int benchGrid(const GridOptions& options);

// Registers `bench memory`.
void addBenchMemoryCommand(CLI::App& bench, Action& action);

// Sequences per step for `tokens_per_step` tokens at `context` (at least 1).
int64_t batchForTokens(int64_t tokens_per_step, int64_t context);

}  // namespace mixerlab::cli
