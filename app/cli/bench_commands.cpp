// `mixerlab bench train`: training throughput (tokens/s, ms/step) of a model on random tokens,
// the same step the trainer runs (forward, shifted CE, backward, clip, AdamW; bench_step.h). Speed
// targets are checked with this command, never with timed unit tests. `--grid` sweeps architectures
// x sizes in child processes (bench_grid.cpp); `bench memory` sweeps context lengths. `mixerlab bench scan`: the
// selective scan's ms per forward and per forward+backward call, by scan mode (fused vs the tensor-op modes).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <thread>

#include <unistd.h>

#include <torch/torch.h>
#include <CLI/CLI.hpp>

#include "app/cli/bench_cells.h"
#include "app/cli/bench_grid.h"
#include "app/cli/bench_step.h"
#include "app/cli/cli_commands.h"
#include "app/cli/number_checks.h"
#include "core/distributed/distributed_env.h"
#include "core/distributed/gradient_sync.h"
#include "core/distributed/process_group.h"
#include "core/distributed/rank_join.h"
#include "core/distributed/rank_launcher.h"
#include "core/models/model_registry.h"
#include "core/runs/run_directory.h"
#include "core/train/device.h"
#include "core/util/error.h"
#include "kernels/selective_scan.h"

namespace mixerlab::cli {

namespace {
struct BenchOptions {
  ModelConfig model;
  int64_t batch = 16, steps = 30, warmup = 5, threads = 0;
  int nproc = 1;
  std::string device = "cpu", precision = "fp32";
};

// This program's own command line (for starting its ranks with the same options).
std::vector<std::string> ownArguments() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::vector<std::string> args;
  std::string arg;
  while (std::getline(in, arg, '\0')) args.push_back(arg);
  if (!args.empty()) args.erase(args.begin());  // the program itself
  return args;
}

int benchTrain(const BenchOptions& o) {
  // --nproc N: this process measures one rank with every core, then starts N Gloo ranks of the
  // same command (each joins the group below) that share the cores and the global batch.
  const auto env = distributedEnvFromEnvironment();
  if (o.nproc > 1 && !env) {
    std::printf("== 1 process ==\n");
    std::fflush(stdout);
    BenchOptions single = o;
    single.nproc = 1;
    benchTrain(single);
    std::printf("== %d Gloo ranks (data parallel, the same global batch of %lld) ==\n", o.nproc,
                static_cast<long long>(o.batch));
    std::fflush(stdout);
    LaunchPlan plan;
    char self[4096];
    const ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
    plan.program = std::string(self, static_cast<size_t>(std::max<ssize_t>(n, 0)));
    plan.args = ownArguments();
    plan.nproc = o.nproc;
    const LaunchResult result = launchRanks(plan);
    if (result.exit_code != 0) std::fprintf(stderr, "error: %s\n", result.message.c_str());
    return result.exit_code;
  }
  std::unique_ptr<ProcessGroup> group;
  std::string device_name = o.device;
  int64_t threads_wanted = o.threads;
  if (env) {
    if (o.batch % env->world_size != 0) {
      throw MixerLabError("bench train: --batch " + std::to_string(o.batch) + " does not split over " +
                          std::to_string(env->world_size) + " ranks");
    }
    auto joined = joinFromEnvironment(o.device, cudaDeviceCount());
    device_name = joined->device;
    if (o.threads <= 0) threads_wanted = joined->cpu_threads;
    group = std::move(joined->group);
  }
  const int world = group ? group->worldSize() : 1;
  const int threads = configureCpuThreads(threads_wanted);
  const c10::Device device = selectDevice(device_name);
  const int64_t T = o.model.context_length;
  const int64_t local_batch = o.batch / world;
  RandomTokenTrainer trainer(o.model, local_batch, device, parsePrecision(o.precision), group.get());
  double first_loss = 0, last_loss = 0;
  int64_t steps_taken = 0;
  auto step = [&]() {
    last_loss = trainer.step();
    if (steps_taken++ == 0) first_loss = last_loss;
  };
  if (o.steps < 1) throw MixerLabError("bench train needs --steps of at least 1, got " + std::to_string(o.steps));
  for (int64_t i = 0; i < o.warmup; ++i) step();
  std::vector<double> step_ms;
  for (int64_t i = 0; i < o.steps; ++i) {
    const auto start = std::chrono::steady_clock::now();
    step();
    step_ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(step_ms.begin(), step_ms.end());
  double total_ms = 0;
  for (double ms : step_ms) total_ms += ms;
  const double mean_ms = total_ms / static_cast<double>(step_ms.size());
  const double tokens_per_step = static_cast<double>(o.batch * T);  // the global batch
  if (group && group->rank() != 0) return 0;                        // rank 0 reports for the job
  if (group) {
    std::printf("data parallel: %d %s ranks, %lld sequences each\n", world, group->backendName().c_str(),
                static_cast<long long>(local_batch));
  }
  std::printf("bench train: %s D=%lld N=%lld T=%lld V=%lld batch %lld, %lld parameters\n", o.model.arch.c_str(),
              static_cast<long long>(o.model.d_model), static_cast<long long>(o.model.n_layers),
              static_cast<long long>(T), static_cast<long long>(o.model.vocab_size), static_cast<long long>(o.batch),
              static_cast<long long>(trainer.parameterCount()));
  // The CPU's description already names its threads and BLAS; a GPU's does not.
  const std::string host = device.is_cuda() ? ", " + std::to_string(threads) + " CPU threads" : "";
  std::printf("device %s%s, precision %s\n", describeDevice(device).c_str(), host.c_str(), o.precision.c_str());
  std::printf("compute paths: %s\n", kernels::describeComputePaths(kernels::activeComputePaths()).c_str());
  std::printf("steps %lld (after %lld warm-up): mean %.1f ms/step, median %.1f ms/step\n",
              static_cast<long long>(o.steps), static_cast<long long>(o.warmup), mean_ms, step_ms[step_ms.size() / 2]);
  std::printf("tokens_per_s %.0f (mean), %.0f (median step)\n", tokens_per_step / (mean_ms / 1000.0),
              tokens_per_step / (step_ms[step_ms.size() / 2] / 1000.0));
  std::printf("loss %.4f at the first step, %.4f after %lld (one fixed batch, so it falls)\n", first_loss, last_loss,
              static_cast<long long>(steps_taken));
  return 0;
}
struct ScanBenchOptions {
  int64_t batch = 8, length = 512, channels = 512, state = 16, chunk_size = 64, threads = 0;
  int repeats = 3;
  std::string mode = "all";
};

// Forward and forward+backward ms per call of each scan mode, one row as soon as its mode is timed
// (fused first, so every later row can say how much slower it is). "sequential" is the op-by-op
// reference loop (its backward is linear in L: the sequence is unbound once).
int benchScan(const ScanBenchOptions& o) {
  const int threads = configureCpuThreads(o.threads);
  std::vector<std::string> modes = {"fused", "chunked", "parallel", "sequential"};
  if (o.mode != "all") modes = {o.mode};
  std::printf(
      "bench scan: selective scan, B=%lld L=%lld E=%lld N=%lld, %d threads, up to %d timed calls per figure "
      "(3 s budget; one call when it takes over 1 s)\n",
      static_cast<long long>(o.batch), static_cast<long long>(o.length), static_cast<long long>(o.channels),
      static_cast<long long>(o.state), threads, o.repeats);
  const bool with_ratio = modes.front() == "fused" && modes.size() > 1;
  std::printf("%-10s %12s %16s%s\n", "mode", "forward ms", "fwd+bwd ms", with_ratio ? "  fwd+bwd vs fused" : "");
  std::fflush(stdout);
  double fused_ms = 0;
  for (const auto& name : modes) {
    const auto mode = kernels::parseScanMode(name);
    const double forward_ms =
        kernels::timeSelectiveScanMs(mode, o.batch, o.length, o.channels, o.state, o.repeats, o.chunk_size);
    const double forward_backward_ms = kernels::timeSelectiveScanMs(mode, o.batch, o.length, o.channels, o.state,
                                                                    o.repeats, o.chunk_size, /*backward=*/true);
    if (name == "fused") fused_ms = forward_backward_ms;
    std::printf("%-10s %12.2f %16.2f", name.c_str(), forward_ms, forward_backward_ms);
    if (with_ratio) std::printf("  %8.1fx", forward_backward_ms / fused_ms);
    if (name == "sequential") std::printf("  (the op-by-op reference loop; its backward is linear in L)");
    std::printf("\n");
    std::fflush(stdout);  // a row per mode as it finishes: progress on a slow machine
  }
  return 0;
}
}  // namespace

// `bench train` serves both modes: one model (the options below, with single values), or --grid
// (lists; the grid's defaults apply to every option the command line leaves out).
void addBenchCommands(CLI::App& app, Action& action) {
  auto o = std::make_shared<BenchOptions>();
  auto g = std::make_shared<GridOptions>();
  auto grid = std::make_shared<bool>(false);
  auto layers = std::make_shared<std::vector<int64_t>>();
  o->model.d_model = 256;
  o->model.n_layers = 4;
  o->model.context_length = 128;
  auto* bench = app.add_subcommand("bench", "Benchmarks that print measured figures");
  bench->require_subcommand(1);
  auto* train = bench->add_subcommand("train",
                                      "Training throughput on random tokens (tokens/s); --grid sweeps "
                                      "architectures x sizes with MFU and peak memory");
  train->add_flag("--grid", *grid,
                  "Sweep --archs x --d-models x --layers, each cell in its own process (table: params, ms/step, "
                  "tokens/s, MFU, peak memory)");
  train->add_option("--arch", o->model.arch, "Architecture (" + architectureNames() + ")");
  train
      ->add_option(
          "--archs", g->archs,
          "--grid: architectures (default: every family that generates; " + generatingArchitectureNames() + ")")
      ->delimiter(',');
  train->add_option("--d-model", o->model.d_model, "Hidden size D")->check(positiveNumber());
  train->add_option("--d-models", g->d_models, "--grid: hidden sizes")->delimiter(',')->check(positiveNumber());
  train->add_option("--layers", *layers, "Number of blocks N (--grid: a list)")
      ->delimiter(',')
      ->check(positiveNumber());
  auto* context = train->add_option("--context", o->model.context_length, "Context length T")->check(positiveNumber());
  train->add_option("--heads", o->model.n_heads, "Attention heads (transformers)")->check(positiveNumber());
  addAttentionOption(*train, o->model.attention);
  train->add_option("--kernel-size", o->model.kernel_size, "Token-mixing kernel size (mixers)")
      ->check(positiveNumber());
  auto* vocab = train->add_option("--vocab", o->model.vocab_size, "Vocabulary size V")->check(positiveNumber());
  train->add_option("--batch", o->batch, "Batch size")->check(positiveNumber());
  train->add_option("--tokens-per-step", g->tokens_per_step, "--grid: tokens per step (batch = tokens / context)")
      ->check(positiveNumber());
  auto* steps = train->add_option("--steps", o->steps, "Timed steps")->check(positiveNumber());
  auto* warmup = train->add_option("--warmup", o->warmup, "Untimed warm-up steps")->check(nonNegativeNumber());
  train->add_option("--threads", o->threads, "CPU threads (0 = all cores)")->check(nonNegativeNumber());
  train->add_option("--device", o->device, "cpu, cuda or auto");
  train->add_option("--precision", o->precision, "fp32, bf16 (autocast) or fp16 (autocast + dynamic loss scaling)")
      ->check(CLI::IsMember({"fp32", "bf16", "fp16"}));
  train
      ->add_option("--nproc", o->nproc,
                   "Also measure N data-parallel Gloo ranks sharing this machine (tokens/s, 1 vs N)")
      ->check(positiveNumber());
  train->add_option("--json", g->json_path, "--grid: write every cell to this JSON file");
  train
      ->add_option("--peak-tflops", g->peak_tflops,
                   "--grid: peak TFLOP/s for MFU (default: the GPU table, or a measured CPU matrix product)")
      ->check(positiveNumber());
  train->add_option("--cell-timeout-s", g->cell_timeout_s, "--grid: kill a cell after this many seconds (0 = no limit)")
      ->check(nonNegativeNumber());
  train->callback([=, &action]() {
    if (*grid) {
      if (o->nproc > 1) throw CLI::ValidationError("--nproc", "is not supported with --grid");
      if (!layers->empty()) g->layers = *layers;
      if (context->count()) g->context = o->model.context_length;
      if (vocab->count()) g->vocab = o->model.vocab_size;
      if (steps->count()) g->steps = o->steps;
      if (warmup->count()) g->warmup = o->warmup;
      g->heads = o->model.n_heads;
      g->attention = o->model.attention;
      g->threads = o->threads;
      g->device = o->device;
      g->precision = o->precision;
      action = [g]() { return benchGrid(*g); };
      return;
    }
    if (layers->size() > 1) throw CLI::ValidationError("--layers", "takes one value without --grid");
    if (layers->size() == 1) o->model.n_layers = layers->front();
    action = [o]() { return benchTrain(*o); };
  });

  auto s = std::make_shared<ScanBenchOptions>();
  auto* scan = bench->add_subcommand(
      "scan", "Selective-scan (SSM recurrence) ms per forward and per forward+backward call, by scan mode");
  scan->add_option("--batch", s->batch, "Batch B")->check(positiveNumber());
  scan->add_option("--length", s->length, "Sequence length L")->check(positiveNumber());
  scan->add_option("--channels", s->channels, "Inner channels E")->check(positiveNumber());
  scan->add_option("--state", s->state, "State size N")->check(positiveNumber());
  scan->add_option("--chunk-size", s->chunk_size, "Chunk size of the chunked scan")->check(positiveNumber());
  scan->add_option("--repeats", s->repeats, "Timed calls per mode");
  scan->add_option("--threads", s->threads, "CPU threads (0 = all cores)")->check(nonNegativeNumber());
  scan->add_option("--mode", s->mode, "all, sequential, parallel, chunked or fused")
      ->check(CLI::IsMember({"all", "sequential", "parallel", "chunked", "fused"}));
  scan->callback([s, &action]() { action = [s]() { return benchScan(*s); }; });
  addGenerateBench(*bench, action);
  addBenchMemoryCommand(*bench, action);
  addBenchCellCommand(*bench, action);
  addKernelBench(*bench, action);
  addDataBench(*bench, action);
}

}  // namespace mixerlab::cli
