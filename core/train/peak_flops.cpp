// GPU peak FLOP/s table and the CPU matrix-product measurement (see peak_flops.h).
#include "core/train/peak_flops.h"

#include <algorithm>
#include <chrono>
#include <vector>

#include <torch/torch.h>

namespace mixerlab {
namespace {

struct GpuPeak {
  const char* name_part;  // matched case-sensitively against the CUDA device name, first match wins
  double half_tflops;     // bf16 / fp16 dense tensor-core (0: not supported)
  double fp16_tflops;     // fp16 when it differs from bf16 (V100 has no bf16); 0: same as half_tflops
  double fp32_tflops;     // fp32 without TF32
};

// NVIDIA datasheet figures, dense. More specific names come before the generic ones.
const std::vector<GpuPeak>& gpuTable() {
  static const std::vector<GpuPeak> table = {
      {"H200", 989.0, 0, 67.0},                                     // H200 SXM: the H100 SXM's compute with more memory
      {"H100 PCIe", 756.0, 0, 51.0},                                // H100 PCIe
      {"H100 NVL", 835.0, 0, 60.0},                                 // H100 NVL
      {"H100", 989.0, 0, 67.0},                                     // H100 SXM5 ("NVIDIA H100 80GB HBM3")
      {"A100", 312.0, 0, 19.5},                                     // A100 SXM4 and PCIe
      {"V100-PCIE", 0.0, 112.0, 14.0}, {"V100", 0.0, 125.0, 15.7},  // V100 SXM2: fp16 tensor cores, no bf16
  };
  return table;
}

}  // namespace

std::optional<double> gpuPeakFlopsPerS(const std::string& gpu_name, Precision precision) {
  for (const auto& gpu : gpuTable()) {
    if (gpu_name.find(gpu.name_part) == std::string::npos) continue;
    double tflops = gpu.fp32_tflops;
    if (precision == Precision::Bf16) tflops = gpu.half_tflops;
    if (precision == Precision::Fp16) tflops = gpu.fp16_tflops > 0 ? gpu.fp16_tflops : gpu.half_tflops;
    if (tflops <= 0) return std::nullopt;
    return tflops * 1e12;
  }
  return std::nullopt;
}

MatmulRate measureCpuMatmulRate(Precision precision, int64_t n, int repeats) {
  checkPrecisionSupported(precision, c10::Device(c10::kCPU));
  torch::NoGradGuard no_grad;
  const auto dtype = precision == Precision::Bf16 ? torch::kBFloat16 : torch::kFloat32;
  torch::manual_seed(0);
  const auto a = torch::randn({n, n}).to(dtype);
  const auto b = torch::randn({n, n}).to(dtype);
  auto c = torch::mm(a, b);  // untimed: first-call set-up, page faults of the result
  MatmulRate rate;
  rate.n = n;
  rate.dtype = precision == Precision::Bf16 ? "bf16" : "fp32";
  rate.repeats = std::max(1, repeats);
  const double flops = 2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n);
  for (int i = 0; i < rate.repeats; ++i) {
    const auto start = std::chrono::steady_clock::now();
    torch::mm_out(c, a, b);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (s > 0) rate.flops_per_s = std::max(rate.flops_per_s, flops / s);
  }
  return rate;
}

}  // namespace mixerlab
