// Plain C++ launchers of the CUDA kernels in kernels/cuda/*.cu: raw device pointers, sizes, an
// element type and a stream; no torch types, so the .cu files compile with nvcc alone (Debian's
// LibTorch has no CUDA headers). The torch-facing wrappers (cuda_ops.cpp) check shapes and dtypes,
// allocate outputs and workspaces and pass the current stream. Every launcher returns the launch's
// cudaError_t (cudaSuccess when nothing failed); all tensors are contiguous, row-major.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

namespace mixerlab::kernels::cuda {

// Element types the kernels take; they accumulate in float (double for kDouble).
enum class Dtype { kFloat, kDouble, kHalf, kBFloat16 };

// --- causal token mix (token_mix.cu) ------------------------------------------------------------
// x, y: [B, L, D]; w: [L, L] (row stride w_stride, upper triangle never read); bias: [L] or null.
// y[b] = tril(w) x[b] + bias. Output tiles read only the tiles at or left of the diagonal.
cudaError_t tokenMixForward(Dtype dtype, const void* x, const void* w, int64_t w_stride, const void* bias, void* y,
                            int64_t batch, int64_t length, int64_t width, cudaStream_t stream);
// dx[b] = tril(w)^T dy[b]: tiles at or below the diagonal only.
cudaError_t tokenMixBackwardInput(Dtype dtype, const void* grad_y, const void* w, int64_t w_stride, void* grad_x,
                                  int64_t batch, int64_t length, int64_t width, cudaStream_t stream);
// Number of float (double for kDouble) workspace elements tokenMixBackwardWeight needs.
int64_t tokenMixWeightWorkspace(int64_t batch, int64_t length, int64_t width);
// grad_w = tril(sum_b dy[b] x[b]^T), written in full ([L, L], exact zeros above the diagonal), and
// grad_bias[i] = sum_{b, d} dy[b, i, d] when grad_bias is not null. Split over the reduction
// (B*D) into partial tiles in `workspace`, summed in a fixed order (deterministic).
cudaError_t tokenMixBackwardWeight(Dtype dtype, const void* grad_y, const void* x, void* grad_w, void* grad_bias,
                                   void* workspace, int64_t batch, int64_t length, int64_t width, cudaStream_t stream);

// --- selective scan (selective_scan.cu) -----------------------------------------------------------
// Shapes as kernels/selective_scan.h: u, delta, y: [B, L, E]; A: [E, N]; Bm, Cm: [B, L, N];
// D: [E] or null. One thread per (batch, channel), the N states in registers. N <= 64.
// lane_per_state (N <= kScanMaxLaneState): one lane per state instead, a shuffle sum per step.
constexpr int64_t kScanMaxState = 64, kScanMaxLaneState = 32;
cudaError_t selectiveScanForward(Dtype dtype, const void* u, const void* delta, const void* A, const void* Bm,
                                 const void* Cm, const void* D, void* y, int64_t batch, int64_t length,
                                 int64_t channels, int64_t state, bool lane_per_state, cudaStream_t stream);
// Float (double for kDouble) workspace elements selectiveScanBackward needs.
int64_t selectiveScanBackwardWorkspace(int64_t batch, int64_t length, int64_t channels, int64_t state);
// Gradients of sum(y * grad_y). The backward walks time in chunks from the end, recomputing each
// chunk's states from a checkpoint taken every kScanChunk steps. grad_u, grad_delta: [B, L, E] in
// dtype. Accumulator outputs (float, or double for kDouble), zeroed by the launcher:
// grad_A_parts [B, E, N] and grad_D_parts [B, E] (summed over B by the caller), grad_B, grad_C
// [B, L, N] (atomic sums over channels).
constexpr int64_t kScanChunk = 16;
cudaError_t selectiveScanBackward(Dtype dtype, const void* u, const void* delta, const void* A, const void* Bm,
                                  const void* Cm, const void* D, const void* grad_y, void* grad_u, void* grad_delta,
                                  void* grad_A_parts, void* grad_B, void* grad_C, void* grad_D_parts, void* workspace,
                                  int64_t batch, int64_t length, int64_t channels, int64_t state, cudaStream_t stream);

// --- residual add + LayerNorm (residual_layer_norm.cu) ------------------------------------------
// x, residual, out, sum: [rows, D]; weight, bias: [D]; mean, rstd: [rows] in the accumulator type
// (float, or double for kDouble). x, sum, weight and bias are `dtype`; residual and out are
// `residual_dtype`: the same, or kHalf / kBFloat16 with dtype kFloat (anything else: an error).
cudaError_t residualLayerNormForward(Dtype dtype, Dtype residual_dtype, const void* x, const void* residual,
                                     const void* weight, const void* bias, void* out, void* sum, void* mean, void* rstd,
                                     int64_t rows, int64_t width, double eps, cudaStream_t stream);
// Row chunks the weight/bias gradient is split over: grad_w_parts, grad_b_parts are
// [residualLayerNormChunks(rows), D] in the accumulator type, summed over chunks by the caller.
int64_t residualLayerNormChunks(int64_t rows);
// grad_x = grad_sum + LayerNorm backward (grad_sum may be null), in dtype; grad_out in residual_dtype.
// grad_residual (the same values in residual_dtype) is written when not null.
cudaError_t residualLayerNormBackward(Dtype dtype, Dtype residual_dtype, const void* grad_out, const void* grad_sum,
                                      const void* sum, const void* mean, const void* rstd, const void* weight,
                                      void* grad_x, void* grad_residual, void* grad_w_parts, void* grad_b_parts,
                                      int64_t rows, int64_t width, cudaStream_t stream);

}  // namespace mixerlab::kernels::cuda
