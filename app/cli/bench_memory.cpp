// `mixerlab bench memory`: peak training memory per architecture x context length at a fixed number
// of tokens per step (batch = tokens / context), each cell a child process, and the OOM frontier
// (the first context that runs out of memory), like the research's Tables S10/S11. On the CPU,
// --memory-limit-gib caps each cell's address space so the frontier does not depend on what else
// the machine is doing. See docs/benchmarks.md.
#include <cstdio>
#include <map>

#include <CLI/CLI.hpp>

#include "app/cli/bench_cells.h"
#include "app/cli/bench_grid.h"
#include "app/cli/number_checks.h"
#include "core/models/model_registry.h"
#include "core/train/device.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"

namespace mixerlab::cli {
namespace {

struct MemoryOptions {
  std::vector<std::string> archs = generatingArchitectures();
  std::vector<int64_t> contexts = {128, 256, 512, 1024, 2048, 4096};
  int64_t d_model = 512, layers = 8, vocab = 4096, heads = 4, tokens_per_step = 16384;
  AttentionImpl attention = AttentionImpl::kSdpa;
  int64_t steps = 2, warmup = 1, threads = 0;
  std::string device = "cpu", precision = "fp32", json_path;
  double memory_limit_gib = 0, cell_timeout_s = 0;
  bool keep_going = false;  // also run the contexts past an arch's first OOM
};

std::string cellText(const nlohmann::json& c) {
  const std::string status = c.value("status", "");
  if (status == "skipped") return "(past OOM)";
  if (status != "ok") return status;
  return formatBytes(c["peak_memory_bytes"].is_number() ? c["peak_memory_bytes"].get<double>() : 0.0);
}

int benchMemory(const MemoryOptions& o) {
  const int threads = configureCpuThreads(o.threads);
  if (o.memory_limit_gib > 0 && o.device != "cpu") {
    throw MixerLabError("--memory-limit-gib limits a CPU cell's address space; it does not apply to " + o.device,
                        "leave it out on a GPU (its memory is the limit)");
  }
  std::printf(
      "bench memory: D=%lld N=%lld V=%lld, %lld tokens/step (batch = tokens / context), %s on %s, %lld steps "
      "after %lld warm-up per cell",
      static_cast<long long>(o.d_model), static_cast<long long>(o.layers), static_cast<long long>(o.vocab),
      static_cast<long long>(o.tokens_per_step), o.precision.c_str(), o.device.c_str(), static_cast<long long>(o.steps),
      static_cast<long long>(o.warmup));
  if (o.memory_limit_gib > 0) {
    std::printf(", address space limited to %.2f GiB above each cell's start-up mappings", o.memory_limit_gib);
  }
  std::printf("\npeak memory: %s\n", o.device == "cpu" ? "peak resident set of the cell process (ru_maxrss, "
                                                         "process start-up included)"
                                                       : "CUDA caching allocator peak allocated bytes");
  std::printf("%7s %6s", "context", "batch");
  for (const auto& arch : o.archs) std::printf("  %14s", benchArchName(arch).c_str());
  std::printf("\n");
  std::fflush(stdout);
  nlohmann::json cells = nlohmann::json::array();
  std::map<std::string, int64_t> frontier;  // arch -> first context that ran out of memory
  for (const int64_t context : o.contexts) {
    const int64_t batch = batchForTokens(o.tokens_per_step, context);
    std::printf("%7lld %6lld", static_cast<long long>(context), static_cast<long long>(batch));
    std::fflush(stdout);
    for (const auto& arch_name : o.archs) {
      const std::string arch = benchArchName(arch_name);
      nlohmann::json record;
      if (frontier.count(arch) && !o.keep_going) {
        record = {{"arch", arch}, {"context", context}, {"batch", batch}, {"status", "skipped"}};
      } else {
        CellSpec cell = sharedCellSpec(o, threads);
        cell.arch = arch;
        cell.d_model = o.d_model;
        cell.layers = o.layers;
        cell.context = context;
        cell.batch = batch;
        cell.memory_limit_gib = o.memory_limit_gib;
        record = runCellInChild(cell, o.cell_timeout_s);
        if (record.value("status", "") == "OOM" && !frontier.count(arch)) frontier[arch] = context;
      }
      std::printf("  %14s", cellText(record).c_str());
      std::fflush(stdout);
      cells.push_back(record);
    }
    std::printf("\n");
  }
  std::printf("OOM frontier (first context that ran out of memory):");
  nlohmann::json frontier_json = nlohmann::json::object();
  for (const auto& arch_name : o.archs) {
    const std::string arch = benchArchName(arch_name);
    if (frontier.count(arch)) {
      std::printf("  %s %lld", arch.c_str(), static_cast<long long>(frontier[arch]));
      frontier_json[arch] = frontier[arch];
    } else {
      std::printf("  %s none up to %lld", arch.c_str(), static_cast<long long>(o.contexts.back()));
      frontier_json[arch] = nullptr;
    }
  }
  std::printf("\n");
  for (const auto& c : cells) {  // the reasons, once per failed cell
    const std::string status = c.value("status", "");
    if (status != "ok" && status != "skipped") {
      std::printf("  %s context %lld: %s: %s\n", c.value("arch", "").c_str(),
                  static_cast<long long>(c.value("context", int64_t{0})), status.c_str(), c.value("error", "").c_str());
    }
  }
  if (!o.json_path.empty()) {
    nlohmann::json doc = {{"benchmark", "memory"},
                          {"memory_limit_gib", o.memory_limit_gib},
                          {"oom_frontier", frontier_json},
                          {"cells", cells}};
    writeFileAtomic(o.json_path, doc.dump(2) + "\n");  // a full disk never leaves half a JSON file
    std::printf("wrote %s\n", o.json_path.c_str());
  }
  return 0;
}

}  // namespace

void addBenchMemoryCommand(CLI::App& bench, Action& action) {
  auto o = std::make_shared<MemoryOptions>();
  auto* cmd = bench.add_subcommand(
      "memory", "Peak training memory by context length at fixed tokens per step, and the OOM frontier");
  cmd->add_option("--archs", o->archs,
                  "Architectures (default: every family that generates; " + generatingArchitectureNames() + ")")
      ->delimiter(',');
  auto* contexts =
      cmd->add_option("--contexts", o->contexts, "Context lengths")->delimiter(',')->check(CLI::Range(2, 1 << 20));
  auto* d_model = cmd->add_option("--d-model", o->d_model, "Hidden size D")->check(positiveNumber());
  auto* layers = cmd->add_option("--layers", o->layers, "Number of blocks N")->check(positiveNumber());
  cmd->add_option("--vocab", o->vocab, "Vocabulary size V")->check(positiveNumber());
  cmd->add_option("--heads", o->heads, "Attention heads (transformers)")->check(positiveNumber());
  addAttentionOption(*cmd, o->attention);
  auto* tokens = cmd->add_option("--tokens-per-step", o->tokens_per_step, "Tokens per step (batch = tokens / context)")
                     ->check(positiveNumber());
  cmd->add_option("--steps", o->steps, "Steps per cell after the warm-up")->check(positiveNumber());
  cmd->add_option("--warmup", o->warmup, "Warm-up steps per cell")->check(nonNegativeNumber());
  cmd->add_option("--threads", o->threads, "CPU threads (0 = all cores)")->check(nonNegativeNumber());
  cmd->add_option("--device", o->device, "cpu, cuda, cuda:N or auto");
  cmd->add_option("--precision", o->precision, "fp32, bf16 or fp16 (as train.precision)")
      ->check(CLI::IsMember({"fp32", "bf16", "fp16"}));
  cmd->add_option("--memory-limit-gib", o->memory_limit_gib,
                  "CPU: cap each cell's address space (RLIMIT_AS) at this many GiB above its start-up mappings")
      ->check(nonNegativeNumber());
  cmd->add_option("--cell-timeout-s", o->cell_timeout_s, "Kill a cell after this many seconds (0 = no limit)")
      ->check(nonNegativeNumber());
  cmd->add_flag("--keep-going", o->keep_going, "Also run the contexts past an architecture's first OOM");
  cmd->add_option("--json", o->json_path, "Write every cell and the frontier to this JSON file");
  cmd->callback([=, &action]() {
    // The defaults are the research's GPU grid, hours of work on a laptop CPU; on the CPU, with no
    // size given, a smaller grid that shows the same trend in about a minute.
    const bool any_size = contexts->count() + d_model->count() + layers->count() + tokens->count() > 0;
    if (o->device == "cpu" && !any_size) {
      o->d_model = 256;
      o->layers = 4;
      o->tokens_per_step = 4096;
      o->contexts = {128, 256, 512, 1024};
      std::printf(
          "CPU default grid (the GPU grid is --d-model 512 --layers 8 --tokens-per-step 16384 "
          "--contexts 128,256,512,1024,2048,4096)\n");
    }
    action = [o]() { return benchMemory(*o); };
  });
}

}  // namespace mixerlab::cli
