// The selective state-space scan of Mamba-style (S6) layers, kept behind one function so the models
// never see which implementation runs. Per channel e and state n:
//   h_t = exp(dt_t*A) * h_{t-1} + dt_t * B_t * u_t,   y_t = C_t . h_t + D * u_t   (h_{-1} = 0)
// ScanMode::Fused (the Mamba default) is a custom autograd function with a hand-written forward
// and backward over plain loops (selective_scan_fused.h): one autograd node per call and no
// [B, L, E, N] tensor kept, about 10-100x faster on the CPU than the op-by-op modes. It runs on
// fp32/fp64 CPU tensors; CUDA tensors take the kernels of kernels/cuda/selective_scan.cu when built
// with MIXERLAB_WITH_CUDA (N <= 64), and any other tensor the parallel mode. The other modes are
// built from differentiable tensor ops, so autograd provides their backward, and they stay as
// references: the first-order linear recurrence h_t = a_t h_{t-1} + b_t is associative under
// (a1, b1) o (a2, b2) = (a1*a2, a2*b1 + b2), so besides the plain sequential loop (the reference)
// it is computed by a log-depth parallel scan or a chunked scan.
#pragma once
#include <optional>
#include <string>

#include <ATen/ATen.h>

#include "kernels/environment/compute_paths.h"

namespace mixerlab::kernels {

enum class ScanMode {
  Sequential,  // reference: one step per time position
  Parallel,    // work-efficient odd/even (Blelloch-style) scan: 2*ceil(log2 L) vectorised levels
  Chunked,     // chunks of chunk_size scanned side by side, carries passed chunk to chunk
  Fused,       // hand-written forward/backward loops (CPU fp32/fp64; otherwise Parallel)
};

// Which CUDA kernel runs the fused scan's forward (ComputePaths::scan_forward): one thread per channel
// walking its N states, or one lane per state (N <= 32; a shuffle sum over the states each step). The
// backward always takes one thread per channel. No effect off the GPU.
ScanForwardKernel scanForwardKernel();

// "sequential" | "parallel" | "chunked" | "fused"; throws std::invalid_argument for anything else.
ScanMode parseScanMode(const std::string& name);
std::string scanModeName(ScanMode mode);

// The recurrence alone. log_a: [B, L, ...] log-space decays (dt*A, so a_t = exp(log_a_t));
// b: same shape (dt*B*u). Returns h: [B, L, ...] for every t, time on dim 1. chunk_size is used by
// ScanMode::Chunked only. ScanMode::Fused has no recurrence of its own here and runs Parallel.
at::Tensor linearRecurrence(const at::Tensor& log_a, const at::Tensor& b, ScanMode mode, int64_t chunk_size = 64);

// The op. u, delta: [B, L, E] (delta already positive, e.g. softplus); A: [E, N] (negative);
// B, C: [B, L, N]; D: [E] or undefined. Zero-order hold for A (A_bar = exp(delta*A)), the Euler
// form for B (B_bar*u = delta*B*u). Returns y: [B, L, E]. The CPU/CUDA dispatch point: Fused runs
// the fused kernel where fusedScanSupports() holds, else the parallel mode.
at::Tensor selectiveScan(const at::Tensor& u, const at::Tensor& delta, const at::Tensor& A, const at::Tensor& B,
                         const at::Tensor& C, const at::Tensor& D, ScanMode mode, int64_t chunk_size = 64);

// Mean wall-clock milliseconds of one selectiveScan call on random fp32 CPU inputs of batch B,
// length L, channels E, state size N: forward only (no autograd) or, with backward = true, forward
// plus backward of sum(y * w) into all six inputs. Up to `repeats` calls after a warm-up call, fewer
// once 3 s are spent; a first call over 1 s is the figure itself (so slow modes finish). For `mixerlab bench
// scan` and the MIXERLAB_BENCH_SCAN=1 mode of tests/test_selective_scan.
double timeSelectiveScanMs(ScanMode mode, int64_t batch, int64_t length, int64_t channels, int64_t state, int repeats,
                           int64_t chunk_size = 64, bool backward = false);

}  // namespace mixerlab::kernels
