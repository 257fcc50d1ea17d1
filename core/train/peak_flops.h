// The peak FLOP/s a benchmark's MFU (model FLOPs utilisation) is measured against: a table of
// NVIDIA's published dense tensor-core figures by GPU name and precision, and, for the CPU, a rate
// measured on this machine with one large matrix product (there is no datasheet figure for "2 cores
// of whatever this VM runs on"). Used by `mixerlab bench train --grid`.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "core/train/mixed_precision.h"

namespace mixerlab {

// Published dense (no sparsity) peak FLOP/s of the GPU whose CUDA name is `gpu_name` (e.g. "NVIDIA
// H100 80GB HBM3") for `precision`'s matrix products; nullopt for a GPU (or a precision, e.g. bf16
// on a V100) the table does not know. fp32 is the non-tensor-core figure: LibTorch leaves TF32
// matrix products off by default.
std::optional<double> gpuPeakFlopsPerS(const std::string& gpu_name, Precision precision);

struct MatmulRate {
  double flops_per_s = 0;  // the best of the timed products: 2 n^3 / seconds
  int64_t n = 0;           // the products were n x n by n x n
  std::string dtype;       // "fp32" or "bf16"
  int repeats = 0;
};

// Times `repeats` products of two random n x n CPU matrices in `precision`'s dtype (fp32 for fp32,
// bf16 for bf16; fp16 is refused on the CPU) after one untimed product, with LibTorch's current
// thread count, and returns the best rate.
MatmulRate measureCpuMatmulRate(Precision precision, int64_t n = 2048, int repeats = 5);

}  // namespace mixerlab
