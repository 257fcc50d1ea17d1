// The fused CPU selective scan: one custom autograd function with a hand-written forward and
// backward, so a Mamba layer records one autograd node for the scan instead of the many small ops
// of the tensor-op modes. Same op and shapes as selectiveScan (selective_scan.h):
//   h_t = exp(dt_t*A) * h_{t-1} + dt_t * B_t * u_t,   y_t = C_t . h_t + D * u_t   (h_{-1} = 0)
// The forward loops over time per (batch, block of 8 channels, in SIMD lanes) and keeps only y; the
// backward recomputes h per block into a small [L, N, 8] scratch buffer and runs the reverse-time
// loop, so nothing of size [B, L, E, N] is ever stored. Both split batch x channel blocks with
// at::parallel_for, which runs them on one thread here (kernels/ is not compiled with OpenMP; see
// docs/kernels.md). fp32 decays use a vectorisable exp (about 2 ulp).
// fp32 and fp64 CPU tensors only; selectiveScan routes every other tensor to the parallel mode.
// Not twice differentiable (the backward is not itself recorded).
#pragma once

#include <ATen/ATen.h>

namespace mixerlab::kernels {

// True when the fused kernel can run these inputs (CPU, fp32 or fp64, one dtype for all).
bool fusedScanSupports(const at::Tensor& u, const at::Tensor& delta, const at::Tensor& A, const at::Tensor& B,
                       const at::Tensor& C, const at::Tensor& D);

// y: [B, L, E]. Shapes are those of selectiveScan and are checked there; D may be undefined.
at::Tensor fusedSelectiveScan(const at::Tensor& u, const at::Tensor& delta, const at::Tensor& A, const at::Tensor& B,
                              const at::Tensor& C, const at::Tensor& D);

// The same forward, also writing h after the last position into `final_state` ([B, E, N]): what a
// decoder needs to go on token by token after a parallel prefill. Records no gradient.
at::Tensor fusedSelectiveScanWithState(const at::Tensor& u, const at::Tensor& delta, const at::Tensor& A,
                                       const at::Tensor& B, const at::Tensor& C, const at::Tensor& D,
                                       at::Tensor& final_state);

}  // namespace mixerlab::kernels
