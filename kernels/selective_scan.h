// The selective state-space scan of Mamba-style (S6) layers, kept behind one function so a fused
// CUDA kernel can replace it later without touching the models. Per channel e and state n:
//   h_t = exp(dt_t*A) * h_{t-1} + dt_t * B_t * u_t,   y_t = C_t . h_t + D * u_t   (h_{-1} = 0)
// The first-order linear recurrence h_t = a_t h_{t-1} + b_t is associative under
// (a1, b1) o (a2, b2) = (a1*a2, a2*b1 + b2), so besides the plain sequential loop (the reference)
// it is computed by a log-depth parallel scan or a chunked scan; all are plain, differentiable
// tensor ops, so autograd provides the backward.
#pragma once
#include <string>

#include <ATen/ATen.h>

namespace mixerlab::kernels {

enum class ScanMode {
  Sequential,  // reference: one step per time position
  Parallel,    // work-efficient odd/even (Blelloch-style) scan: 2*ceil(log2 L) vectorised levels
  Chunked,     // chunks of chunk_size scanned side by side, carries passed chunk to chunk
};

// "sequential" | "parallel" | "chunked"; throws MixerLabError for anything else.
ScanMode parseScanMode(const std::string& name);
std::string scanModeName(ScanMode mode);

// The recurrence alone. log_a: [B, L, ...] log-space decays (dt*A, so a_t = exp(log_a_t));
// b: same shape (dt*B*u). Returns h: [B, L, ...] for every t, time on dim 1. chunk_size is used by
// ScanMode::Chunked only.
at::Tensor linearRecurrence(const at::Tensor& log_a, const at::Tensor& b, ScanMode mode, int64_t chunk_size = 64);

// The op. u, delta: [B, L, E] (delta already positive, e.g. softplus); A: [E, N] (negative);
// B, C: [B, L, N]; D: [E] or undefined. Zero-order hold for A (A_bar = exp(delta*A)), the Euler
// form for B (B_bar*u = delta*B*u). Returns y: [B, L, E].
at::Tensor selectiveScan(const at::Tensor& u, const at::Tensor& delta, const at::Tensor& A, const at::Tensor& B,
                         const at::Tensor& C, const at::Tensor& D, ScanMode mode, int64_t chunk_size = 64);

// Mean wall-clock milliseconds of one forward selectiveScan call (no autograd) on random fp32 CPU
// inputs of batch B, length L, channels E, state size N, after one warm-up call. For `mixerlab
// bench scan` and the MIXERLAB_BENCH_SCAN=1 mode of tests/test_selective_scan.
double timeSelectiveScanMs(ScanMode mode, int64_t batch, int64_t length, int64_t channels, int64_t state, int repeats,
                           int64_t chunk_size = 64);

}  // namespace mixerlab::kernels
