// The selective scan's entry point and its tensor-op modes (see selective_scan.h): the sequential
// loop, the odd/even parallel scan and the chunked scan, all from plain tensor ops on any device;
// ScanMode::Fused dispatches to selective_scan_fused.cpp on CPU and to the parallel scan elsewhere.
#include "kernels/selective_scan.h"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include <ATen/core/grad_mode.h>
#include <c10/util/Exception.h>

#include "kernels/call_timing.h"
#include "kernels/environment/compute_paths.h"
#include "kernels/selective_scan_fused.h"

#ifdef MIXERLAB_WITH_CUDA
#include "kernels/cuda/cuda_ops.h"
#endif

namespace mixerlab::kernels {

namespace {

// All scans below take log_a, b as [B, L, M] (time on dim 1) and return h as [B, L, M].

// The op-by-op reference. The sequence is unbound once (one autograd node whose backward stacks the
// step gradients) rather than indexed per step: indexing makes every step's backward write a
// full-length zero gradient, so the backward grew with L^2; unbound, it is linear in L.
at::Tensor sequentialScan(const at::Tensor& log_a, const at::Tensor& b) {
  const int64_t length = log_a.size(1);
  // Time-major copies, so every step reads contiguous [B, M] slices.
  const std::vector<at::Tensor> a = log_a.transpose(0, 1).exp().contiguous().unbind(0);
  const std::vector<at::Tensor> bt = b.transpose(0, 1).contiguous().unbind(0);
  std::vector<at::Tensor> states;
  states.reserve(static_cast<size_t>(length));
  at::Tensor h = bt[0];  // h_0 = a_0 * 0 + b_0
  states.push_back(h);
  for (int64_t t = 1; t < length; ++t) {
    h = a[static_cast<size_t>(t)] * h + bt[static_cast<size_t>(t)];
    states.push_back(h);
  }
  return at::stack(states, 1);
}

// Work-efficient parallel scan by odd/even reduction (the recursive form of Blelloch's up/down
// sweep): combine neighbouring pairs (up-sweep), scan the half-length sequence of pairs (which
// yields h at every odd position), then finish every even position from its left neighbour
// (down-sweep). Depth 2*ceil(log2 L), total work O(L). Decays are composed as sums of logs, so an
// exp only ever sees a value <= 0 for decaying inputs (underflow to 0 is the correct limit).
at::Tensor oddEvenScan(const at::Tensor& log_a, const at::Tensor& b) {
  const int64_t length = log_a.size(1);
  if (length == 1) return b;
  at::Tensor la = log_a, bb = b;
  if (length % 2 == 1) {  // pad with the identity element (a = 1, b = 0); sliced off below
    la = at::constant_pad_nd(la, {0, 0, 0, 1});
    bb = at::constant_pad_nd(bb, {0, 0, 0, 1});
  }
  const int64_t batch = la.size(0), pairs = la.size(1) / 2, width = la.size(2);
  const at::Tensor la2 = la.reshape({batch, pairs, 2, width});
  const at::Tensor b2 = bb.reshape({batch, pairs, 2, width});
  const at::Tensor la_even = la2.select(2, 0), la_odd = la2.select(2, 1);
  const at::Tensor b_even = b2.select(2, 0), b_odd = b2.select(2, 1);
  // (even, odd) combined: decay la_even + la_odd, value exp(la_odd) * b_even + b_odd.
  const at::Tensor h_odd = oddEvenScan(la_even + la_odd, la_odd.exp() * b_even + b_odd);
  // h at position 2i is exp(la_2i) * h_{2i-1} + b_2i, with h_{-1} = 0.
  const at::Tensor h_before = at::constant_pad_nd(h_odd.narrow(1, 0, pairs - 1), {0, 0, 1, 0});
  const at::Tensor h_even = la_even.exp() * h_before + b_even;
  return at::stack({h_even, h_odd}, 2).reshape({batch, 2 * pairs, width}).narrow(1, 0, length);
}

// Chunked scan: cut L into chunks of Q positions. (1) Every chunk is scanned from a zero state, all
// chunks side by side (Q vectorised steps). (2) The decay from each chunk's start through position q
// is exp(cumsum of the log-decays), a value in (0, 1] for decaying inputs. (3) The state entering
// each chunk is carried chunk to chunk sequentially (L/Q steps). (4) h = local + decay * carry.
at::Tensor chunkedScan(const at::Tensor& log_a, const at::Tensor& b, int64_t chunk_size) {
  const int64_t length = log_a.size(1);
  const int64_t q_len = std::min(chunk_size, length);
  const int64_t chunks = (length + q_len - 1) / q_len;
  const int64_t padded = chunks * q_len;
  at::Tensor la = log_a, bb = b;
  if (padded != length) {  // identity padding at the end
    la = at::constant_pad_nd(la, {0, 0, 0, padded - length});
    bb = at::constant_pad_nd(bb, {0, 0, 0, padded - length});
  }
  const int64_t batch = la.size(0), width = la.size(2);
  const at::Tensor la4 = la.reshape({batch, chunks, q_len, width});
  const at::Tensor b4 = bb.reshape({batch, chunks, q_len, width});

  // (1) local states with a zero initial state, every chunk at once.
  const at::Tensor a_q = la4.permute({2, 0, 1, 3}).exp().contiguous();  // [Q, B, chunks, M]: contiguous steps
  const at::Tensor b_q = b4.permute({2, 0, 1, 3}).contiguous();
  std::vector<at::Tensor> local_states;
  local_states.reserve(static_cast<size_t>(q_len));
  at::Tensor h = b_q[0];
  local_states.push_back(h);
  for (int64_t q = 1; q < q_len; ++q) {
    h = a_q[q] * h + b_q[q];
    local_states.push_back(h);
  }
  const at::Tensor local = at::stack(local_states, 2);  // [B, chunks, Q, M]

  // (2) cumulative decay from the chunk's start through q, in log space.
  const at::Tensor decay_into = la4.cumsum(2).exp();  // [B, chunks, Q, M]

  // (3) carries: state at the end of chunk c-1, propagated sequentially.
  std::vector<at::Tensor> carries;
  carries.reserve(static_cast<size_t>(chunks));
  at::Tensor carry = at::zeros_like(b4.select(1, 0).select(1, 0));  // [B, M]
  for (int64_t c = 0; c < chunks; ++c) {
    carries.push_back(carry);
    if (c + 1 < chunks) {
      carry = decay_into.select(1, c).select(1, q_len - 1) * carry + local.select(1, c).select(1, q_len - 1);
    }
  }
  const at::Tensor carry_in = at::stack(carries, 1).unsqueeze(2);  // [B, chunks, 1, M]

  // (4) combine.
  const at::Tensor full = local + decay_into * carry_in;
  return full.reshape({batch, padded, width}).narrow(1, 0, length);
}

}  // namespace

ScanForwardKernel scanForwardKernel() { return activeComputePaths().scan_forward; }

ScanMode parseScanMode(const std::string& name) {
  if (name == "sequential") return ScanMode::Sequential;
  if (name == "parallel") return ScanMode::Parallel;
  if (name == "chunked") return ScanMode::Chunked;
  if (name == "fused") return ScanMode::Fused;
  throw std::invalid_argument("unknown scan mode \"" + name + "\" (expected sequential, parallel, chunked or fused)");
}

std::string scanModeName(ScanMode mode) {
  switch (mode) {
    case ScanMode::Sequential:
      return "sequential";
    case ScanMode::Parallel:
      return "parallel";
    case ScanMode::Chunked:
      return "chunked";
    case ScanMode::Fused:
      return "fused";
  }
  return "?";
}

at::Tensor linearRecurrence(const at::Tensor& log_a, const at::Tensor& b, ScanMode mode, int64_t chunk_size) {
  TORCH_CHECK(log_a.dim() >= 2 && log_a.sizes() == b.sizes(),
              "linearRecurrence: log_a and b must both be [B, L, ...]"
              ", got ",
              log_a.sizes(), " and ", b.sizes());
  TORCH_CHECK(log_a.size(1) >= 1, "linearRecurrence: the sequence is empty");
  TORCH_CHECK(chunk_size >= 1, "linearRecurrence: chunk_size must be >= 1, got ", chunk_size);
  const auto shape = log_a.sizes().vec();
  const at::Tensor la = log_a.reshape({shape[0], shape[1], -1});
  const at::Tensor bb = b.reshape({shape[0], shape[1], -1});
  at::Tensor h;
  switch (mode) {
    case ScanMode::Sequential:
      h = sequentialScan(la, bb);
      break;
    case ScanMode::Parallel:
    case ScanMode::Fused:  // the fused kernel is the whole op; a bare recurrence takes the parallel scan
      h = oddEvenScan(la, bb);
      break;
    case ScanMode::Chunked:
      h = chunkedScan(la, bb, chunk_size);
      break;
  }
  return h.reshape(shape);
}

at::Tensor selectiveScan(const at::Tensor& u, const at::Tensor& delta, const at::Tensor& A, const at::Tensor& B,
                         const at::Tensor& C, const at::Tensor& D, ScanMode mode, int64_t chunk_size) {
  TORCH_CHECK(u.dim() == 3 && delta.sizes() == u.sizes(), "selectiveScan: u and delta must be [B, L, E], got ",
              u.sizes(), " and ", delta.sizes());
  const int64_t batch = u.size(0), length = u.size(1), channels = u.size(2);
  TORCH_CHECK(A.dim() == 2 && A.size(0) == channels, "selectiveScan: A must be [E, N] with E = ", channels, ", got ",
              A.sizes());
  const int64_t state = A.size(1);
  const std::vector<int64_t> bc_shape{batch, length, state};
  TORCH_CHECK(B.sizes() == bc_shape && C.sizes() == bc_shape,
              "selectiveScan: B and C must be [B, L, N] = ", at::IntArrayRef(bc_shape), ", got ", B.sizes(), " and ",
              C.sizes());
  TORCH_CHECK(!D.defined() || (D.dim() == 1 && D.size(0) == channels), "selectiveScan: D must be [E], got ", D.sizes());
  if (mode == ScanMode::Fused) {
    // The dispatch point: the fused CPU kernel, the CUDA kernel (kernels/cuda/selective_scan.cu)
    // when built with MIXERLAB_WITH_CUDA, else the parallel scan.
    if (fusedScanSupports(u, delta, A, B, C, D)) return fusedSelectiveScan(u, delta, A, B, C, D);
#ifdef MIXERLAB_WITH_CUDA
    if (cudaScanSupports(u, delta, A, B, C, D)) return cudaSelectiveScan(u, delta, A, B, C, D);
#endif
    mode = ScanMode::Parallel;
  }
  const at::Tensor delta_a = delta.unsqueeze(-1) * A;                       // [B, L, E, N], log A_bar
  const at::Tensor delta_b_u = (delta * u).unsqueeze(-1) * B.unsqueeze(2);  // [B, L, E, N]
  const at::Tensor h = linearRecurrence(delta_a, delta_b_u, mode, chunk_size);
  at::Tensor y = at::matmul(h, C.unsqueeze(-1)).squeeze(-1);  // C_t . h_t -> [B, L, E]
  if (D.defined()) y = y + u * D;
  return y;
}

double timeSelectiveScanMs(ScanMode mode, int64_t batch, int64_t length, int64_t channels, int64_t state, int repeats,
                           int64_t chunk_size, bool backward) {
  const auto opts = at::TensorOptions().dtype(at::kFloat);
  at::Tensor u = at::randn({batch, length, channels}, opts);
  at::Tensor delta = at::softplus(at::randn({batch, length, channels}, opts) - 3.0);
  at::Tensor A = -at::arange(1, state + 1, opts).repeat({channels, 1});
  at::Tensor B = at::randn({batch, length, state}, opts);
  at::Tensor C = at::randn({batch, length, state}, opts);
  at::Tensor D = at::ones({channels}, opts);
  const at::Tensor w = at::randn({batch, length, channels}, opts);  // weights of the loss sum(y * w)
  if (backward) {
    for (at::Tensor* t : {&u, &delta, &A, &B, &C, &D}) t->requires_grad_(true);
  }
  auto call = [&]() {
    if (!backward) {
      at::NoGradGuard no_grad;
      selectiveScan(u, delta, A, B, C, D, mode, chunk_size);
      return;
    }
    for (at::Tensor* t : {&u, &delta, &A, &B, &C, &D}) t->mutable_grad() = at::Tensor();
    (selectiveScan(u, delta, A, B, C, D, mode, chunk_size) * w).sum().backward();
  };
  return meanCallMs(call, repeats);
}

}  // namespace mixerlab::kernels
