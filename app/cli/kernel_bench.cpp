// `mixerlab bench kernels`: ms per forward and per forward+backward call of every op of the kernel
// table (kernels/kernel_table.h) against its ATen reference, on the chosen device; then on the CPU
// the token-mix reference's GEMM block sizes, on a GPU residual add + LayerNorm with a bf16
// residual, and the selective scan against the memory bound of any scan.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include <torch/torch.h>
#include <CLI/CLI.hpp>

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "app/cli/cli_commands.h"
#include "app/cli/number_checks.h"
#include "core/train/device.h"
#include "kernels/kernel_table.h"
#include "kernels/kernel_timing.h"
#include "kernels/selective_scan.h"

namespace mixerlab::cli {
namespace {

struct KernelBenchOptions {
  int64_t batch = 16, width = 256, threads = 0;
  std::vector<int64_t> lengths = {128, 512};
  int repeats = 5;
  std::string device = "cpu";
  bool scan = false;                 // --scan: the selective-scan section on a CPU too (always on a GPU)
  int64_t scan_state = 16;           // N of the scan section and of the table's selective_scan rows
  std::vector<std::string> kernels;  // --kernel: these ops of the table only (empty: all)
};

// The selective scan against the memory bound of any scan: a forward must at least read u, delta, B
// and C and write y once, so no scan is faster than those bytes over the device's copy bandwidth.
void printScanSection(const KernelBenchOptions& o, const c10::Device& device) {
  const int64_t channels = 2 * o.width;
  const double copy_gbs =
      kernels::measuredCopyBandwidthGBs(device, int64_t{1} << (device.is_cuda() ? 30 : 27), o.repeats);
  std::printf("selective scan: B=%lld E=%lld N=%lld fp32; device copy bandwidth %.0f GB/s (measured)\n",
              static_cast<long long>(o.batch), static_cast<long long>(channels), static_cast<long long>(o.scan_state),
              copy_gbs);
  std::printf("%-12s %6s  %-22s %10s %12s   %6s %7s  %10s %12s\n", "op", "L", "path", "fwd ms", "fwd+bwd ms", "fwd",
              "fwd+bwd", "bound ms", "fwd / bound");
  for (const int64_t length : o.lengths) {
    const auto old_scan = kernels::timeSelectiveScanOnDeviceMs(kernels::ScanMode::Parallel, o.batch, length, channels,
                                                               o.scan_state, device, o.repeats);
    std::vector<std::pair<const char*, kernels::KernelTimingMs>> rows = {{"parallel ops (old)", old_scan}};
    if (device.is_cuda()) {  // both CUDA forward kernels (the backward is the same kernel in both rows)
      for (const auto& [name, kernel] : {std::pair<const char*, kernels::ScanForwardKernel>{
                                             "fused, thread/channel", kernels::ScanForwardKernel::kThreadPerChannel},
                                         {"fused, lane/state", kernels::ScanForwardKernel::kLanePerState}}) {
        kernels::ComputePaths paths = kernels::activeComputePaths();
        paths.scan_forward = kernel;
        const kernels::ScopedComputePaths scope(paths);
        rows.emplace_back(name, kernels::timeSelectiveScanOnDeviceMs(kernels::ScanMode::Fused, o.batch, length,
                                                                     channels, o.scan_state, device, o.repeats));
      }
    } else {
      rows.emplace_back("fused loops", kernels::timeSelectiveScanOnDeviceMs(kernels::ScanMode::Fused, o.batch, length,
                                                                            channels, o.scan_state, device, o.repeats));
    }
    const double bound_ms =
        kernels::selectiveScanForwardBytes(o.batch, length, channels, o.scan_state) / (copy_gbs * 1e9) * 1e3;
    for (const auto& [path, t] : rows) {
      std::printf("%-12s %6lld  %-22s %10.3f %12.3f   %5.2fx %6.2fx  %10.4f %11.1fx\n", "scan",
                  static_cast<long long>(length), path, t.forward_ms, t.forward_backward_ms,
                  old_scan.forward_ms / t.forward_ms, old_scan.forward_backward_ms / t.forward_backward_ms, bound_ms,
                  t.forward_ms / bound_ms);
    }
    std::fflush(stdout);
  }
}

void printTimingRow(const char* op, long long length, const char* path, const kernels::KernelTimingMs& t,
                    const kernels::KernelTimingMs& base) {
  std::printf("%-20s %6lld  %-22s %10.3f %12.3f   %5.2fx %6.2fx\n", op, length, path, t.forward_ms,
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
  for (const std::string& name : o.kernels) kernels::findKernel(name);  // an unknown name stops here, listing the table
  keepAllocationsWarm();
  const int threads = configureCpuThreads(o.threads);
  const c10::Device device = selectDevice(o.device);
  std::printf("bench kernels: B=%lld D=%lld on %s, %d threads, %d repeats (fp32; speedup = old / new)\n",
              static_cast<long long>(o.batch), static_cast<long long>(o.width), device.str().c_str(), threads,
              o.repeats);
  std::printf("%-20s %6s  %-22s %10s %12s   %6s %7s\n", "op", "L", "path", "fwd ms", "fwd+bwd ms", "fwd", "fwd+bwd");
  for (const int64_t length : o.lengths) {
    const kernels::KernelShape shape{o.batch, length, o.width, o.scan_state};
    for (const kernels::KernelEntry& entry : kernels::kernelTable()) {
      if (!o.kernels.empty() && std::find(o.kernels.begin(), o.kernels.end(), entry.name) == o.kernels.end()) continue;
      const auto reference = kernels::timeKernelEntryMs(entry, true, shape, device, at::kFloat, o.repeats);
      const auto kernel = kernels::timeKernelEntryMs(entry, false, shape, device, at::kFloat, o.repeats);
      printTimingRow(entry.name.c_str(), length, "reference (old)", reference, reference);
      printTimingRow(entry.name.c_str(), length, "kernel", kernel, reference);
    }
    if (device.is_cpu()) {
      const auto old_mix = kernels::timeTokenMixMs(false, o.batch, length, o.width, device, o.repeats);
      std::vector<int64_t> block_rows;
      for (const int64_t rows : {int64_t{64}, int64_t{128}, int64_t{256}}) {
        if (rows < length) block_rows.push_back(rows);
      }
      block_rows.push_back(length);  // one dense GEMM
      for (const int64_t rows : block_rows) {
        const auto ref = kernels::timeTokenMixReferenceMs(rows, o.batch, length, o.width, o.repeats);
        const std::string path = rows >= length ? "reference dense" : "reference blocks " + std::to_string(rows);
        printTimingRow("causal_token_mix", length, path.c_str(), ref, old_mix);
      }
    }
    if (device.is_cuda()) {  // fp32 stream + bf16 residual, bf16 out: the fused mixer stack under autocast
      const auto unfused_mixed =
          kernels::timeResidualLayerNormMs(false, o.batch, length, o.width, device, o.repeats, at::kBFloat16);
      const auto fused_mixed =
          kernels::timeResidualLayerNormMs(true, o.batch, length, o.width, device, o.repeats, at::kBFloat16);
      printTimingRow("residual_layer_norm", length, "bf16 residual: unfused", unfused_mixed, unfused_mixed);
      printTimingRow("residual_layer_norm", length, "bf16 residual: fused", fused_mixed, unfused_mixed);
    }
    std::fflush(stdout);
  }
  if (o.scan || device.is_cuda()) printScanSection(o, device);
  return 0;
}

}  // namespace

void addKernelBench(CLI::App& bench, Action& action) {
  auto o = std::make_shared<KernelBenchOptions>();
  auto* cmd = bench.add_subcommand(
      "kernels",
      "Every op of the kernel table: ms per forward and forward+backward, the kernel against its ATen reference");
  cmd->add_option("--batch", o->batch, "Batch B")->check(positiveNumber());
  cmd->add_option("--width", o->width, "Hidden size D")->check(positiveNumber());
  cmd->add_option("--lengths", o->lengths, "Sequence lengths L")->delimiter(',')->check(positiveNumber());
  cmd->add_option("--repeats", o->repeats, "Timed calls per row")->check(positiveNumber());
  cmd->add_option("--threads", o->threads, "CPU threads (0 = all cores)")->check(nonNegativeNumber());
  cmd->add_option("--device", o->device, "cpu, cuda or auto");
  cmd->add_flag("--scan", o->scan,
                "Also time the selective scan against its memory bound on a CPU (always on a GPU; E = 2 x width)");
  cmd->add_option("--scan-state", o->scan_state, "State size N of the scan rows")->check(positiveNumber());
  cmd->add_option("--kernel", o->kernels, "Only this op of the table (repeatable; default: every op)");
  cmd->callback([o, &action]() { action = [o]() { return benchKernels(*o); }; });
}

}  // namespace mixerlab::cli
