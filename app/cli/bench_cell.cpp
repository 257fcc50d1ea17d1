// `mixerlab bench cell` (hidden): one benchmark cell in this process, printed as one JSON line; and
// the parent's side, which runs it as a child and classifies how it ended (see bench_cells.h).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <map>
#include <new>
#include <optional>
#include <sstream>

#include <torch/torch.h>
#include <CLI/CLI.hpp>

#include "app/cli/bench_cells.h"
#include "app/cli/bench_step.h"
#include "app/cli/number_checks.h"
#include "core/models/model_registry.h"
#include "core/models/transformers/causal_attention.h"
#include "core/runs/run_directory.h"
#include "core/train/device.h"
#include "core/train/device_memory.h"
#include "core/util/error.h"
#include "core/util/subprocess.h"

namespace mixerlab::cli {
namespace {

constexpr int kOutOfMemoryExit = 4;  // `bench cell` exit code for an allocation failure

ModelConfig modelOf(const CellSpec& c) {
  ModelConfig m;
  m.arch = benchArchName(c.arch);
  m.d_model = c.d_model;
  m.n_layers = c.layers;
  m.context_length = c.context;
  m.vocab_size = c.vocab;
  m.n_heads = c.heads;
  m.attention = c.attention;
  return m;
}

nlohmann::json specJson(const CellSpec& c) {
  return {{"arch", benchArchName(c.arch)},
          {"d_model", c.d_model},
          {"layers", c.layers},
          {"context", c.context},
          {"vocab", c.vocab},
          {"heads", c.heads},
          {"attention", attentionImplName(c.attention)},
          {"attention_ran", attentionImplName(attentionImplRun(c.attention))},
          {"batch", c.batch},
          {"tokens_per_step", c.batch * c.context},
          {"precision", c.precision},
          {"device", c.device}};
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

// Trains the cell and fills in the measurements; throws on any failure.
void measureCell(const CellSpec& c, nlohmann::json& out) {
  const int threads = configureCpuThreads(c.threads);
  const c10::Device device = selectDevice(c.device);
  const Precision precision = parsePrecision(c.precision);
  checkPrecisionSupported(precision, device);
  // Start the thread pool before the baseline, so its stacks count as start-up mappings.
  (void)torch::mm(torch::ones({256, 256}), torch::ones({256, 256})).sum().item<float>();
  out["threads"] = threads;
  out["baseline_rss_bytes"] = processRssBytes();
  if (c.memory_limit_gib > 0) {
    const int64_t start_bytes = processAddressSpaceBytes();
    const int64_t limit_bytes = start_bytes + static_cast<int64_t>(c.memory_limit_gib * 1073741824.0);
    limitAddressSpace(limit_bytes);
    out["address_space_at_start_bytes"] = start_bytes;
    out["address_space_limit_bytes"] = limit_bytes;
  }
  const ModelConfig model = modelOf(c);
  const ModelCost cost = estimateCost(model, c.batch);
  out["forward_flops_per_token"] = cost.forward_flops_per_token;
  out["training_flops_per_token"] = cost.training_flops_per_token;
  resetCudaPeakMemory(device);
  RandomTokenTrainer trainer(model, c.batch, device, precision);
  out["params"] = trainer.parameterCount();
  double loss = 0;
  std::optional<double> first_loss;  // the first step's, warm-up included: training must lower it
  for (int64_t i = 0; i < c.warmup; ++i) {
    loss = trainer.step();
    if (!first_loss) first_loss = loss;
  }
  std::vector<double> step_ms;
  for (int64_t i = 0; i < c.steps; ++i) {
    const auto start = std::chrono::steady_clock::now();
    loss = trainer.step();  // reading the loss waits for the device
    if (!first_loss) first_loss = loss;
    step_ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  double total_ms = 0;
  for (double ms : step_ms) total_ms += ms;
  const size_t n = step_ms.size();
  const double median_ms = median(step_ms);
  std::sort(step_ms.begin(), step_ms.end());
  const double tokens_per_step = static_cast<double>(c.batch * c.context);
  out["steps"] = c.steps;
  out["warmup"] = c.warmup;
  out["step_ms_median"] = median_ms;
  out["step_ms_mean"] = total_ms / static_cast<double>(n);
  out["step_ms_min"] = step_ms.front();
  out["step_ms_max"] = step_ms.back();
  out["tokens_per_s"] = tokens_per_step / (median_ms / 1000.0);
  out["first_loss"] = *first_loss;
  out["final_loss"] = loss;
  if (c.phases) {
    std::vector<double> forward_ms, backward_ms, optimizer_ms;
    for (int64_t i = 0; i < c.steps; ++i) {
      StepPhaseTimes t;
      trainer.step(&t);
      forward_ms.push_back(t.forward_ms);
      backward_ms.push_back(t.backward_ms);
      optimizer_ms.push_back(t.optimizer_ms);
    }
    out["phase_ms_median"] = {
        {"forward", median(forward_ms)}, {"backward", median(backward_ms)}, {"optimizer", median(optimizer_ms)}};
  }
  out["skipped_steps"] = trainer.skippedSteps();
  if (const auto cuda_peak = cudaPeakAllocatedBytes(device)) {
    out["peak_memory_bytes"] = *cuda_peak;
    out["peak_memory_source"] = "cuda caching allocator: peak allocated bytes";
  } else if (device.is_cuda()) {
    out["peak_memory_bytes"] = nullptr;
    out["peak_memory_source"] = "unknown (built without MIXERLAB_WITH_CUDA)";
  } else {
    out["peak_memory_bytes"] = processPeakRssBytes();
    out["peak_memory_source"] = "cpu: peak resident set of the cell process (ru_maxrss)";
  }
  out["device_name"] = device.is_cuda() ? cudaDeviceName(device) : describeDevice(device);
  out["compute_paths"] = computePathsJson(kernels::activeComputePaths());
  out["status"] = "ok";
}

int benchCell(const CellSpec& c) {
  nlohmann::json out = specJson(c);
  int code = 0;
  auto fail = [&](const std::string& message, bool out_of_memory) {
    out["status"] = out_of_memory ? "OOM" : "failed";
    out["error"] = message;
    code = out_of_memory ? kOutOfMemoryExit : 1;
  };
  try {
    measureCell(c, out);
  } catch (const std::bad_alloc& e) {
    fail(std::string("std::bad_alloc: ") + e.what(), true);
  } catch (const std::exception& e) {  // c10::Error and MixerLabError among them
    const std::string message = e.what();
    fail(message.substr(0, message.find('\n')), isOutOfMemoryMessage(message));
  }
  std::printf("%s\n", out.dump().c_str());
  std::fflush(stdout);
  return code;
}

// The last line of `text` that parses as a JSON object, or null.
nlohmann::json lastJsonLine(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  nlohmann::json found;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] != '{') continue;
    auto parsed = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (parsed.is_object()) found = parsed;
  }
  return found;
}

std::string lastLine(const std::string& text) {
  std::istringstream in(text);
  std::string line, last;
  while (std::getline(in, line)) {
    if (!line.empty()) last = line;
  }
  return last;
}

}  // namespace

std::string benchArchName(const std::string& name) { return canonicalArchitectureName(name); }

std::vector<std::string> CellSpec::cellArguments() const {
  auto s = [](auto v) {
    std::ostringstream o;
    o << v;
    return o.str();
  };
  std::vector<std::string> args{"bench",
                                "cell",
                                "--arch",
                                benchArchName(arch),
                                "--d-model",
                                s(d_model),
                                "--layers",
                                s(layers),
                                "--context",
                                s(context),
                                "--vocab",
                                s(vocab),
                                "--heads",
                                s(heads),
                                "--attention",
                                attentionImplName(attention),
                                "--batch",
                                s(batch),
                                "--steps",
                                s(steps),
                                "--warmup",
                                s(warmup),
                                "--threads",
                                s(threads),
                                "--device",
                                device,
                                "--precision",
                                precision,
                                "--memory-limit-gib",
                                s(memory_limit_gib)};
  if (phases) args.push_back("--phases");
  return args;
}

nlohmann::json runCellInChild(const CellSpec& cell, double timeout_s) {
  SubprocessSpec child;
  child.program = currentExecutable();
  child.args = cell.cellArguments();
  child.stdout_to = child.stderr_to = ChildOutput::kPipe;
  const CapturedRun run = runToEnd(child, timeout_s);
  nlohmann::json record = lastJsonLine(run.out);
  if (!record.is_object() || !record.contains("status")) {
    record = specJson(cell);
    if (run.timed_out) {
      record["status"] = "timeout";
      record["error"] = "no result after " + std::to_string(static_cast<int64_t>(timeout_s)) + " s (killed)";
    } else if (run.signal == SIGKILL || (run.signal != 0 && isOutOfMemoryMessage(run.err))) {
      record["status"] = "OOM";
      record["error"] = "killed by signal " + std::to_string(run.signal) +
                        (run.signal == SIGKILL ? " (OOM killer)" : "") + ": " + lastLine(run.err);
    } else {
      record["status"] = "failed";
      record["error"] = (run.signal ? "killed by signal " + std::to_string(run.signal) + ": "
                                    : "exit code " + std::to_string(run.exit_code) + ": ") +
                        lastLine(run.err);
    }
  }
  record["child_max_rss_bytes"] = run.max_rss_bytes;
  return record;
}

std::string formatBytes(double bytes) {
  if (!(bytes > 0)) return "-";
  char text[32];
  if (bytes >= 1073741824.0) {
    std::snprintf(text, sizeof text, "%.2f GiB", bytes / 1073741824.0);
  } else {
    std::snprintf(text, sizeof text, "%.0f MiB", bytes / 1048576.0);
  }
  return text;
}

CLI::Option* addAttentionOption(CLI::App& command, AttentionImpl& impl) {
  std::map<std::string, AttentionImpl> names;
  for (size_t i = 0; i < attentionImplNames().size(); ++i)
    names[attentionImplNames()[i]] = static_cast<AttentionImpl>(i);
  return command.add_option("--attention", impl, "Transformers' attention: sdpa (fused) or eager (scores stored)")
      ->transform(CLI::CheckedTransformer(names));
}

void addBenchCellCommand(CLI::App& bench, Action& action) {
  auto c = std::make_shared<CellSpec>();
  auto* cell = bench.add_subcommand("cell", "One benchmark cell as one JSON line (run by --grid and memory)");
  cell->group("");  // hidden: an implementation detail of the sweeps
  cell->add_option("--arch", c->arch);
  cell->add_option("--d-model", c->d_model)->check(positiveNumber());
  cell->add_option("--layers", c->layers)->check(positiveNumber());
  cell->add_option("--context", c->context)->check(positiveNumber());
  cell->add_option("--vocab", c->vocab)->check(positiveNumber());
  cell->add_option("--heads", c->heads)->check(positiveNumber());
  addAttentionOption(*cell, c->attention);
  cell->add_option("--batch", c->batch)->check(positiveNumber());
  cell->add_option("--steps", c->steps)->check(positiveNumber());
  cell->add_option("--warmup", c->warmup)->check(nonNegativeNumber());
  cell->add_option("--threads", c->threads)->check(nonNegativeNumber());
  cell->add_option("--device", c->device);
  cell->add_option("--precision", c->precision)->check(CLI::IsMember({"fp32", "bf16", "fp16"}));
  cell->add_option("--memory-limit-gib", c->memory_limit_gib)->check(nonNegativeNumber());
  cell->add_flag("--phases", c->phases, "Then time forward, backward and optimizer apart (device synced between)");
  cell->callback([c, &action]() { action = [c]() { return benchCell(*c); }; });
}

}  // namespace mixerlab::cli
