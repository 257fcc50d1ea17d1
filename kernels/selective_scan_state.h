// The state a selective scan ends in, for decoders that process a prompt with one parallel forward
// and then step token by token (core/analysis/decoders/mamba_recurrent_decoder.cpp): h_L of
// kernels/selective_scan.h's recurrence, in closed form or kept by the fused kernel.
#pragma once
#include <cstdint>

#include <ATen/core/Tensor.h>

#include "kernels/selective_scan.h"

namespace mixerlab::kernels {

// u, delta: [B, L, E]; A: [E, N]; B: [B, L, N] (as selectiveScan takes them). Returns h after the last
// position, [B, E, N], starting from h = 0:
//   h_L = sum_t exp(A * (delta_{t+1} + ... + delta_L)) * delta_t * B_t * u_t,
// the unrolled h_t = exp(delta_t A) h_{t-1} + delta_t B_t u_t. The decays are sums of the deltas after
// t (a reverse cumulative sum, so no difference of two large sums), and every factor is <= 1 since
// A < 0. Positions are taken `chunk` at a time, so the [B, chunk, E, N] temporary stays small.
at::Tensor selectiveScanFinalState(const at::Tensor& u, const at::Tensor& delta, const at::Tensor& A,
                                   const at::Tensor& B, int64_t chunk = 64);

// y as selectiveScan(u, delta, A, B, C, D, mode, chunk_size) gives it, and the state after the last
// position ([B, E, N]); records no gradient. With ScanMode::Fused on fp32/fp64 CPU tensors the fused
// kernel writes its last states as it goes (no extra pass: the closed form above costs B*L*E*N
// exponentials again, about as much as the scan); elsewhere selectiveScan, then the closed form.
struct ScanWithState {
  at::Tensor y, final_state;
};
ScanWithState selectiveScanWithFinalState(const at::Tensor& u, const at::Tensor& delta, const at::Tensor& A,
                                          const at::Tensor& B, const at::Tensor& C, const at::Tensor& D, ScanMode mode,
                                          int64_t chunk_size = 64);

}  // namespace mixerlab::kernels
