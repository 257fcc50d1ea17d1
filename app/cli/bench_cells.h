// One benchmark cell (a model size x context x batch x precision) run as a child process of its
// own: `mixerlab bench cell ...` (hidden) trains the cell on random tokens and prints one JSON line;
// `bench train --grid` and `bench memory` start one such child per cell, so a cell that runs out of
// memory or crashes is reported as "OOM" or "failed" and the sweep goes on, and each cell's peak
// resident memory is its own. The JSON fields are listed in docs/benchmarks.md.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/cli/cli_commands.h"
#include "core/models/model_registry.h"

namespace mixerlab::cli {

struct CellSpec {
  std::string arch = architectures().front().name;  // a registry name or alias ("mixer")
  int64_t d_model = 256, layers = 8, context = 512, vocab = 4096, heads = 4;
  int64_t batch = 32;                              // sequences per step: tokens per step / context
  AttentionImpl attention = AttentionImpl::kSdpa;  // transformer families
  int64_t steps = 100, warmup = 10, threads = 0;
  std::string device = "cpu", precision = "fp32";
  double memory_limit_gib = 0;  // CPU: RLIMIT_AS of the cell, on top of what it had mapped at start; 0: none
  bool phases = false;          // after the timed steps, as many again split into phases (StepPhaseTimes)

  // The `bench cell` arguments that run this cell.
  std::vector<std::string> cellArguments() const;
};

// The settings every cell of one sweep shares, taken from the sweep's options (GridOptions,
// MemoryOptions: the same field names); the sweep then sets arch, sizes, context and batch.
template <class SweepOptions>
CellSpec sharedCellSpec(const SweepOptions& o, int64_t threads) {
  CellSpec cell;
  cell.vocab = o.vocab;
  cell.heads = o.heads;
  cell.attention = o.attention;
  cell.steps = o.steps;
  cell.warmup = o.warmup;
  cell.threads = threads;
  cell.device = o.device;
  cell.precision = o.precision;
  return cell;
}

// --attention sdpa|eager into `impl` (model.attention of the cells' transformers).
CLI::Option* addAttentionOption(CLI::App& command, AttentionImpl& impl);

// Registry name for an architecture as the bench commands accept it ("mixer" -> "masked_mixer").
std::string benchArchName(const std::string& name);

// Runs the cell as a child process of this program and returns its JSON record: the child's own
// line (status "ok" with the measurements, or "OOM" / "failed" with "error"), or one made here from
// how the child ended: "OOM" when it was killed by SIGKILL (the kernel's OOM killer) or died
// reporting an allocation failure, "timeout" past `timeout_s`, else "failed". CPU cells always carry
// "child_max_rss_bytes" (wait4's ru_maxrss), also when they failed.
nlohmann::json runCellInChild(const CellSpec& cell, double timeout_s);

// Registers the hidden `bench cell` subcommand.
void addBenchCellCommand(CLI::App& bench, Action& action);

// "1.23 GiB" / "456 MiB"; "-" for a value <= 0.
std::string formatBytes(double bytes);

}  // namespace mixerlab::cli
