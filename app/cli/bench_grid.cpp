// `mixerlab bench train --grid`: speed and peak memory of every architecture x d_model x layers cell
// at one context and a fixed number of tokens per step, each cell in its own child process; MFU
// against a measured (CPU) or published (GPU) peak. See docs/benchmarks.md.
#include <cstdio>

#include <torch/torch.h>

#include "app/cli/bench_cells.h"
#include "app/cli/bench_grid.h"
#include "core/runs/run_directory.h"
#include "core/train/device.h"
#include "core/train/peak_flops.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"

namespace mixerlab::cli {
namespace {

const char* kFlopFormula =
    "FLOPs per step = training_flops_per_token x tokens per step, where training_flops_per_token is "
    "model_cost's 3 x forward FLOPs/token (backward ~ 2 x forward; forward counts every matrix product "
    "of the blocks at 2 FLOPs per multiply-add, the masked zeros of the token mixing and the full T x T "
    "attention included, plus the 2*D*V head). MFU = FLOPs per step / median step time / peak FLOP/s.";

struct Peak {
  double flops_per_s = 0;  // 0: unknown (per-cell GPU lookup)
  std::string source;
};

Peak choosePeak(const GridOptions& o, Precision precision) {
  if (o.peak_tflops > 0) return {o.peak_tflops * 1e12, "--peak-tflops"};
  if (selectDevice(o.device).is_cuda()) return {0, "the GPU table (peak_flops.cpp) by the cell's device name"};
  const MatmulRate rate = measureCpuMatmulRate(precision);
  char source[160];
  std::snprintf(source, sizeof source, "measured: best of %d %lldx%lld %s matrix products, %d threads", rate.repeats,
                static_cast<long long>(rate.n), static_cast<long long>(rate.n), rate.dtype.c_str(),
                at::get_num_threads());
  return {rate.flops_per_s, source};
}

// MFU and the peak it used, added to an "ok" cell's record.
void addMfu(nlohmann::json& cell, const Peak& peak, Precision precision) {
  double peak_flops = peak.flops_per_s;
  if (peak_flops <= 0) {
    const auto name = cell.value("device_name", std::string());
    if (const auto table = gpuPeakFlopsPerS(name, precision)) peak_flops = *table;
  }
  cell["peak_flops_per_s"] = peak_flops > 0 ? nlohmann::json(peak_flops) : nlohmann::json(nullptr);
  if (cell.value("status", "") != "ok" || peak_flops <= 0) {
    cell["mfu"] = nullptr;
    return;
  }
  const double achieved = cell["training_flops_per_token"].get<double>() * cell["tokens_per_s"].get<double>();
  cell["achieved_flops_per_s"] = achieved;
  cell["mfu"] = achieved / peak_flops;
}

void printGridRow(const nlohmann::json& c) {
  std::printf("%-13s %7lld %6lld ", c["arch"].get<std::string>().c_str(),
              static_cast<long long>(c["d_model"].get<int64_t>()), static_cast<long long>(c["layers"].get<int64_t>()));
  if (c.value("status", "") != "ok") {
    std::printf("%10s %10s %12s %7s %10s  %s: %s\n", "-", "-", "-", "-", "-", c.value("status", "").c_str(),
                c.value("error", "").c_str());
    return;
  }
  char mfu[16] = "n/a";
  if (c["mfu"].is_number()) std::snprintf(mfu, sizeof mfu, "%.2f%%", 100.0 * c["mfu"].get<double>());
  const double peak = c["peak_memory_bytes"].is_number() ? c["peak_memory_bytes"].get<double>() : 0.0;
  std::printf("%9.2fM %10.1f %12.0f %7s %10s  ok\n", c["params"].get<double>() / 1e6, c["step_ms_median"].get<double>(),
              c["tokens_per_s"].get<double>(), mfu, formatBytes(peak).c_str());
}

}  // namespace

int64_t batchForTokens(int64_t tokens_per_step, int64_t context) {
  return std::max<int64_t>(1, tokens_per_step / context);
}

int benchGrid(const GridOptions& o) {
  const Precision precision = parsePrecision(o.precision);
  const int threads = configureCpuThreads(o.threads);
  const int64_t batch = batchForTokens(o.tokens_per_step, o.context);
  std::printf(
      "bench train --grid: %zu archs x %zu d_model x %zu layers, context %lld, vocab %lld, %lld tokens/step "
      "(batch %lld), %s on %s, median of %lld timed steps after %lld warm-up, one child process per cell\n",
      o.archs.size(), o.d_models.size(), o.layers.size(), static_cast<long long>(o.context),
      static_cast<long long>(o.vocab), static_cast<long long>(batch * o.context), static_cast<long long>(batch),
      o.precision.c_str(), o.device.c_str(), static_cast<long long>(o.steps), static_cast<long long>(o.warmup));
  const Peak peak = choosePeak(o, precision);
  if (peak.flops_per_s > 0) {
    std::printf("peak %.1f GFLOP/s (%s)\n", peak.flops_per_s / 1e9, peak.source.c_str());
  } else {
    std::printf("peak FLOP/s: %s (MFU n/a for a GPU the table does not list: pass --peak-tflops)\n",
                peak.source.c_str());
  }
  std::printf("%s\n", kFlopFormula);
  std::printf("%-13s %7s %6s %10s %10s %12s %7s %10s  %s\n", "arch", "d_model", "layers", "params", "ms/step",
              "tokens/s", "MFU", "peak mem", "status");
  std::fflush(stdout);
  nlohmann::json cells = nlohmann::json::array();
  for (const auto& arch : o.archs) {
    for (const int64_t d_model : o.d_models) {
      for (const int64_t layers : o.layers) {
        CellSpec cell = sharedCellSpec(o, threads);
        cell.arch = benchArchName(arch);
        cell.d_model = d_model;
        cell.layers = layers;
        cell.context = o.context;
        cell.batch = batch;
        nlohmann::json record = runCellInChild(cell, o.cell_timeout_s);
        addMfu(record, peak, precision);
        printGridRow(record);
        std::fflush(stdout);
        cells.push_back(record);
      }
    }
  }
  if (!o.json_path.empty()) {
    nlohmann::json doc = {{"benchmark", "train_grid"},
                          {"peak_flops_per_s", peak.flops_per_s > 0 ? nlohmann::json(peak.flops_per_s) : nullptr},
                          {"peak_flops_source", peak.source},
                          {"flop_formula", kFlopFormula},
                          {"compute_paths", computePathsJson(kernels::activeComputePaths())},
                          {"cells", cells}};
    writeFileAtomic(o.json_path, doc.dump(2) + "\n");  // a full disk never leaves half a JSON file
    std::printf("wrote %s\n", o.json_path.c_str());
  }
  return 0;
}

}  // namespace mixerlab::cli
