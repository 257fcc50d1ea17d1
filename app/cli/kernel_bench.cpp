// `mixerlab bench kernels`: ms per forward and per forward+backward call of the custom kernels
// (kernels/kernel_timing.h) against the paths they replace, on the chosen device: the causal token
// mix (custom op vs the autograd GEMM on the masked weight, and on the CPU the reference's GEMM
// block sizes) and residual add + LayerNorm (fused vs add then at::layer_norm).
#include <cstdio>
#include <string>
#include <vector>

#include <torch/torch.h>
#include <CLI/CLI.hpp>

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "app/cli/cli_commands.h"
#include "core/train/device.h"
#include "kernels/kernel_timing.h"

namespace mixerlab::cli {
namespace {

struct KernelBenchOptions {
  int64_t batch = 16, width = 256, threads = 0;
  std::vector<int64_t> lengths = {128, 512};
  int repeats = 5;
  std::string device = "cpu";
};

void printTimingRow(const char* op, long long length, const char* path, const kernels::KernelTimingMs& t,
                    const kernels::KernelTimingMs& base) {
  std::printf("%-12s %6lld  %-22s %10.3f %12.3f   %5.2fx %6.2fx\n", op, length, path, t.forward_ms,
              t.forward_backward_ms, base.forward_ms / t.forward_ms, base.forward_backward_ms / t.forward_backward_ms);
}

// Keeps freed buffers in the heap instead of returning them to the system: glibc hands blocks of
// more than a few MB back with munmap, and faulting them in again on every call cost up to 40 ms
// per call here, more than the kernels themselves, and made the figures depend on call order.
void keepAllocationsWarm() {
#ifdef __GLIBC__
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
}

int benchKernels(const KernelBenchOptions& o) {
  keepAllocationsWarm();
  const int threads = configureCpuThreads(o.threads);
  const c10::Device device = selectDevice(o.device);
  std::printf("bench kernels: B=%lld D=%lld on %s, %d threads, %d repeats (fp32; speedup = old / new)\n",
              static_cast<long long>(o.batch), static_cast<long long>(o.width), device.str().c_str(), threads,
              o.repeats);
  std::printf("%-12s %6s  %-22s %10s %12s   %6s %7s\n", "op", "L", "path", "fwd ms", "fwd+bwd ms", "fwd", "fwd+bwd");
  for (const int64_t length : o.lengths) {
    const auto old_mix = kernels::timeTokenMixMs(false, o.batch, length, o.width, device, o.repeats);
    const auto new_mix = kernels::timeTokenMixMs(true, o.batch, length, o.width, device, o.repeats);
    printTimingRow("token mix", length, "autograd (old)", old_mix, old_mix);
    printTimingRow("token mix", length, "custom op", new_mix, old_mix);
    if (device.is_cpu()) {
      std::vector<int64_t> block_rows;
      for (const int64_t rows : {int64_t{64}, int64_t{128}, int64_t{256}}) {
        if (rows < length) block_rows.push_back(rows);
      }
      block_rows.push_back(length);  // one dense GEMM
      for (const int64_t rows : block_rows) {
        const auto ref = kernels::timeTokenMixReferenceMs(rows, o.batch, length, o.width, o.repeats);
        const std::string path = rows >= length ? "reference dense" : "reference blocks " + std::to_string(rows);
        printTimingRow("token mix", length, path.c_str(), ref, old_mix);
      }
    }
    const auto unfused = kernels::timeResidualLayerNormMs(false, o.batch, length, o.width, device, o.repeats);
    const auto fused = kernels::timeResidualLayerNormMs(true, o.batch, length, o.width, device, o.repeats);
    printTimingRow("residual+LN", length, "add + layer_norm (old)", unfused, unfused);
    printTimingRow("residual+LN", length, "fused", fused, unfused);
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace

void addKernelBench(CLI::App& bench, Action& action) {
  auto o = std::make_shared<KernelBenchOptions>();
  auto* cmd = bench.add_subcommand(
      "kernels",
      "Custom kernels (token mix, residual+LayerNorm): ms per forward and forward+backward, new vs old path");
  cmd->add_option("--batch", o->batch, "Batch B")->check(CLI::PositiveNumber);
  cmd->add_option("--width", o->width, "Hidden size D")->check(CLI::PositiveNumber);
  cmd->add_option("--lengths", o->lengths, "Sequence lengths L")->delimiter(',')->check(CLI::PositiveNumber);
  cmd->add_option("--repeats", o->repeats, "Timed calls per row")->check(CLI::PositiveNumber);
  cmd->add_option("--threads", o->threads, "CPU threads (0 = all cores)")->check(CLI::NonNegativeNumber);
  cmd->add_option("--device", o->device, "cpu, cuda or auto");
  cmd->callback([o, &action]() { action = [o]() { return benchKernels(*o); }; });
}

}  // namespace mixerlab::cli
