// Timing mode of the custom kernels, for `mixerlab bench kernels`: median wall-clock
// milliseconds of one call on random inputs, forward only (no autograd) and forward + backward of
// sum(y * w) into every input, after one warm-up call. CUDA timings synchronise the device.
#pragma once

#include <ATen/ATen.h>

#include "kernels/kernel_table.h"
#include "kernels/selective_scan.h"

namespace mixerlab::kernels {

struct KernelTimingMs {
  double forward_ms = 0, forward_backward_ms = 0;
};

// One op of the kernel table at `shape` in `dtype` on `device`: its custom kernel, or with
// `use_reference` the ATen reference it replaced; backward is of sum(output * w) over every output.
KernelTimingMs timeKernelEntryMs(const KernelEntry& entry, bool use_reference, const KernelShape& shape,
                                 const at::Device& device, at::ScalarType dtype, int repeats);

// The causal token mix on x [batch, length, width] with a [length, length] weight and a bias:
// custom = true is causalTokenMix (causal_token_mix.h), false the autograd path it replaced
// (maskedTokenMixAutograd).
KernelTimingMs timeTokenMixMs(bool custom, int64_t batch, int64_t length, int64_t width, const at::Device& device,
                              int repeats);

// The CPU reference alone (no autograd) with `block_rows` rows per GEMM block (>= length: one
// dense GEMM on tril(W)), to choose the default block; forward_backward_ms is forward + backward.
KernelTimingMs timeTokenMixReferenceMs(int64_t block_rows, int64_t batch, int64_t length, int64_t width, int repeats);

// Residual add + LayerNorm over width on [batch, length, width]: fused = true is residualLayerNorm,
// false the unfused add and at::layer_norm. x is fp32; the residual (and the output) fp32, or half /
// bfloat16 as under autocast (residual_dtype).
KernelTimingMs timeResidualLayerNormMs(bool fused, int64_t batch, int64_t length, int64_t width,
                                       const at::Device& device, int repeats,
                                       at::ScalarType residual_dtype = at::kFloat);

// The selective scan (selective_scan.h) in fp32 on u, delta: [batch, length, channels] and B, C:
// [batch, length, state]; mode is a ScanMode (fused: the CUDA kernel on a GPU, the fused loops on
// the CPU; parallel: the ATen-op scan).
KernelTimingMs timeSelectiveScanOnDeviceMs(ScanMode mode, int64_t batch, int64_t length, int64_t channels,
                                           int64_t state, const at::Device& device, int repeats);

// The fewest bytes any scan forward moves through device memory: u and delta read and y written
// ([batch, length, channels]), B and C read ([batch, length, state]), A and D read once; fp32.
double selectiveScanForwardBytes(int64_t batch, int64_t length, int64_t channels, int64_t state);

// Device memory bandwidth in GB/s (1e9 bytes), measured: the median of `repeats` copies of one
// fp32 buffer of `bytes` into another, counting the bytes read and written.
double measuredCopyBandwidthGBs(const at::Device& device, int64_t bytes, int repeats);

}  // namespace mixerlab::kernels
