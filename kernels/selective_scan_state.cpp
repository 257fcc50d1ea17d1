// The state after a selective scan in closed form (see selective_scan_state.h).
#include "kernels/selective_scan_state.h"

#include <algorithm>

#include <ATen/ATen.h>
#include <ATen/core/grad_mode.h>

#include "kernels/selective_scan_fused.h"

namespace mixerlab::kernels {

at::Tensor selectiveScanFinalState(const at::Tensor& u, const at::Tensor& delta, const at::Tensor& A,
                                   const at::Tensor& B, int64_t chunk) {
  const int64_t length = u.size(1);
  // after[b, t, e]: delta_{t+1} + ... + delta_L (0 at the last position).
  const at::Tensor after = at::flip(at::cumsum(at::flip(delta, {1}), 1), {1}) - delta;
  const at::Tensor pushed = delta * u;  // [B, L, E]
  at::Tensor state = at::zeros({u.size(0), u.size(2), A.size(1)}, u.options());
  for (int64_t first = 0; first < length; first += chunk) {
    const int64_t count = std::min(chunk, length - first);
    const at::Tensor decay = at::exp(after.narrow(1, first, count).unsqueeze(-1) * A);  // [B, c, E, N]
    const at::Tensor input =
        pushed.narrow(1, first, count).unsqueeze(-1) * B.narrow(1, first, count).unsqueeze(2);  // [B, c, E, N]
    state.add_((decay * input).sum(1));
  }
  return state;
}

ScanWithState selectiveScanWithFinalState(const at::Tensor& u, const at::Tensor& delta, const at::Tensor& A,
                                          const at::Tensor& B, const at::Tensor& C, const at::Tensor& D, ScanMode mode,
                                          int64_t chunk_size) {
  at::NoGradGuard no_grad;
  ScanWithState out;
  if (mode == ScanMode::Fused && fusedScanSupports(u, delta, A, B, C, D)) {
    out.y = fusedSelectiveScanWithState(u, delta, A, B, C, D, out.final_state);
    return out;
  }
  out.y = selectiveScan(u, delta, A, B, C, D, mode, chunk_size);
  out.final_state = selectiveScanFinalState(u, delta, A, B);
  return out;
}

}  // namespace mixerlab::kernels
