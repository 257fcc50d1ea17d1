// CUDA kernels of the selective scan (kernels/selective_scan.h):
//   h_t = exp(dt_t*A) * h_{t-1} + dt_t * B_t * u_t,   y_t = C_t . h_t + D * u_t   (h_{-1} = 0)
// Parallel over batch x channels: one thread per (b, e) walks time with its N states in registers
// (N <= kMaxN, a template bound, so the state loops unroll into registers). Neighbouring threads are
// neighbouring channels, so u, delta, y are read and written coalesced and B_t, C_t are broadcast.
// The backward keeps nothing from the forward: it reruns the scan storing only a checkpoint of h
// every kScanChunk steps, then walks the chunks from the last, recomputing each chunk's states from
// its checkpoint into a small per-thread buffer and running the reverse-time recurrence. The B and
// C gradients sum over channels: a warp sum, then one atomic add per warp.
// A second forward kernel gives each state its own lane (N <= 32): a group of kLanes lanes (the
// power of two >= N) per channel, one state each, summing C_t . h_t with shuffles every step. It
// runs kLanes times as many threads, which the one-thread-per-channel kernel needs to hide memory
// latency when B x E is small against the GPU (docs/kernels.md, "selective scan").
#include <type_traits>

#include "kernels/cuda/common.cuh"

namespace mixerlab::kernels::cuda {

namespace {

struct ScanArgs {
  const void *u, *delta, *A, *B, *C, *D, *grad_y;
  void *y, *grad_u, *grad_delta, *grad_A_parts, *grad_B, *grad_C, *grad_D_parts, *checkpoints;
  int64_t batch, length, channels, state;
};

template <typename T, int kMaxN>
__global__ void scanForwardKernel(ScanArgs p) {
  using A = acc_t<T>;
  const int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x, b = blockIdx.y;
  const int64_t L = p.length, E = p.channels, N = p.state;
  if (e >= E) return;
  const T *u = static_cast<const T*>(p.u), *delta = static_cast<const T*>(p.delta);
  const T *Am = static_cast<const T*>(p.A), *Bm = static_cast<const T*>(p.B), *Cm = static_cast<const T*>(p.C);
  const A d_skip = p.D ? toAcc(static_cast<const T*>(p.D)[e]) : A(0);
  A a[kMaxN], h[kMaxN];
#pragma unroll
  for (int n = 0; n < kMaxN; ++n) {
    a[n] = n < N ? toAcc(Am[e * N + n]) : A(0);
    h[n] = 0;
  }
  for (int64_t t = 0; t < L; ++t) {
    const int64_t bte = (b * L + t) * E + e, btn = (b * L + t) * N;
    const A dt = toAcc(delta[bte]), uu = toAcc(u[bte]);
    const A dt_u = dt * uu;
    A out = d_skip * uu;
#pragma unroll
    for (int n = 0; n < kMaxN; ++n) {
      if (n < N) {
        h[n] = expAcc(dt * a[n]) * h[n] + dt_u * toAcc(Bm[btn + n]);
        out += toAcc(Cm[btn + n]) * h[n];
      }
    }
    static_cast<T*>(p.y)[bte] = fromAcc<T>(out);
  }
}

template <typename T, int kLanes>
__global__ void __launch_bounds__(256) scanForwardLanesKernel(ScanArgs p) {
  using A = acc_t<T>;
  const int lane = static_cast<int>(threadIdx.x % kLanes);
  const int64_t channel = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / kLanes;
  const int64_t b = blockIdx.y, L = p.length, E = p.channels, N = p.state;
  const bool active = channel < E;  // groups past the last channel shuffle zeros
  const int64_t e = active ? channel : E - 1;
  const bool has_state = lane < N;
  const int64_t n = has_state ? lane : 0;
  const T* __restrict__ u = static_cast<const T*>(p.u);
  const T* __restrict__ delta = static_cast<const T*>(p.delta);
  const T* __restrict__ Bm = static_cast<const T*>(p.B);
  const T* __restrict__ Cm = static_cast<const T*>(p.C);
  T* __restrict__ y = static_cast<T*>(p.y);
  const A a = has_state ? toAcc(static_cast<const T*>(p.A)[e * N + n]) : A(0);
  const A d_skip = p.D ? toAcc(static_cast<const T*>(p.D)[e]) : A(0);
  A h = 0;
  // Index products each step: walking pointers instead measured slower on an H200 (0.649 against
  // 0.479 ms at B=16 E=2048 N=16 L=512), presumably losing the loads hoisted across the unrolled steps.
#pragma unroll 4
  for (int64_t t = 0; t < L; ++t) {
    const int64_t bte = (b * L + t) * E + e, btn = (b * L + t) * N + n;
    const A dt = toAcc(delta[bte]), uu = toAcc(u[bte]);
    const A bn = toAcc(Bm[btn]), cn = toAcc(Cm[btn]);
    h = has_state ? expAcc(dt * a) * h + dt * uu * bn : A(0);
    A out = cn * h;
#pragma unroll
    for (int offset = kLanes / 2; offset > 0; offset >>= 1) out += __shfl_xor_sync(0xffffffffu, out, offset);
    if (lane == 0 && active) y[bte] = fromAcc<T>(out + d_skip * uu);
  }
}

template <typename T>
cudaError_t launchForwardLanes(const ScanArgs& args, cudaStream_t stream) {
  auto launch = [&](auto lanes_tag) {
    constexpr int kLanes = decltype(lanes_tag)::value;
    const dim3 grid(ceilDiv(args.channels * kLanes, 256), static_cast<unsigned int>(args.batch));
    scanForwardLanesKernel<T, kLanes><<<grid, 256, 0, stream>>>(args);
    return cudaGetLastError();
  };
  if (args.state <= 4) return launch(std::integral_constant<int, 4>{});
  if (args.state <= 8) return launch(std::integral_constant<int, 8>{});
  if (args.state <= 16) return launch(std::integral_constant<int, 16>{});
  if (args.state <= 32) return launch(std::integral_constant<int, 32>{});
  return cudaErrorInvalidValue;
}

template <typename A>
__device__ __forceinline__ A warpSum(A v) {
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

// Every thread of a warp stays to the end (inactive channels contribute zeros), since the B / C
// gradient sums shuffle across the warp.
template <typename T, int kMaxN>
__global__ void scanBackwardKernel(ScanArgs p) {
  using A = acc_t<T>;
  constexpr int kChunk = static_cast<int>(kScanChunk);
  const int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x, b = blockIdx.y;
  const int64_t L = p.length, E = p.channels, N = p.state;
  const bool active = e < E;
  const int64_t ec = active ? e : 0;  // a valid channel to read for inactive lanes
  const T *u = static_cast<const T*>(p.u), *delta = static_cast<const T*>(p.delta);
  const T *Am = static_cast<const T*>(p.A), *Bm = static_cast<const T*>(p.B), *Cm = static_cast<const T*>(p.C);
  const T* gy_all = static_cast<const T*>(p.grad_y);
  const A d_skip = p.D ? toAcc(static_cast<const T*>(p.D)[ec]) : A(0);
  const int64_t chunks = (L + kChunk - 1) / kChunk;
  A* ckpt = static_cast<A*>(p.checkpoints) + (b * E + ec) * chunks * N;  // h before each chunk
  A a[kMaxN], h[kMaxN];
#pragma unroll
  for (int n = 0; n < kMaxN; ++n) {
    a[n] = n < N ? toAcc(Am[ec * N + n]) : A(0);
    h[n] = 0;
  }
  // Pass 1: the forward states, kept only at chunk starts.
  for (int64_t t = 0; t < L; ++t) {
    const int64_t bte = (b * L + t) * E + ec, btn = (b * L + t) * N;
    if (t % kChunk == 0 && active) {
#pragma unroll
      for (int n = 0; n < kMaxN; ++n) {
        if (n < N) ckpt[(t / kChunk) * N + n] = h[n];
      }
    }
    const A dt = toAcc(delta[bte]), dt_u = dt * toAcc(u[bte]);
#pragma unroll
    for (int n = 0; n < kMaxN; ++n) {
      if (n < N) h[n] = expAcc(dt * a[n]) * h[n] + dt_u * toAcc(Bm[btn + n]);
    }
  }
  // Pass 2: reverse time, chunk by chunk. gh: dL/dh_t carried from step t+1; ga: dL/dA.
  A gh[kMaxN], ga[kMaxN];
#pragma unroll
  for (int n = 0; n < kMaxN; ++n) gh[n] = ga[n] = 0;
  A gd = 0;
  A states[kChunk][kMaxN];  // h after each step of the current chunk (local memory)
  for (int64_t c = chunks - 1; c >= 0; --c) {
    const int64_t t0 = c * kChunk, t1 = min(L, t0 + kChunk);
#pragma unroll
    for (int n = 0; n < kMaxN; ++n) h[n] = (n < N && active) ? ckpt[c * N + n] : A(0);
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t bte = (b * L + t) * E + ec, btn = (b * L + t) * N;
      const A dt = toAcc(delta[bte]), dt_u = dt * toAcc(u[bte]);
#pragma unroll
      for (int n = 0; n < kMaxN; ++n) {
        if (n < N) h[n] = expAcc(dt * a[n]) * h[n] + dt_u * toAcc(Bm[btn + n]);
        states[t - t0][n] = h[n];
      }
    }
    for (int64_t t = t1 - 1; t >= t0; --t) {
      const int64_t bte = (b * L + t) * E + ec, btn = (b * L + t) * N;
      const A dt = toAcc(delta[bte]), uu = toAcc(u[bte]);
      const A gy = active ? toAcc(gy_all[bte]) : A(0);
      const A dt_u = dt * uu;
      A g_u = gy * d_skip, g_dt = 0;
      gd += gy * uu;
#pragma unroll
      for (int n = 0; n < kMaxN; ++n) {
        if (n < N) {
          const A bn = toAcc(Bm[btn + n]), cn = toAcc(Cm[btn + n]);
          const A h_prev = t > t0 ? states[t - t0 - 1][n] : ((active ? ckpt[c * N + n] : A(0)));
          const A decay = expAcc(dt * a[n]);
          const A g = gh[n] + gy * cn;  // dL/dh_t
          const A g_log_decay = g * h_prev * decay;
          g_dt += g_log_decay * a[n] + g * bn * uu;
          ga[n] += g_log_decay * dt;
          g_u += g * dt * bn;
          gh[n] = g * decay;
          const A to_b = warpSum(active ? g * dt_u : A(0));
          const A to_c = warpSum(active ? gy * states[t - t0][n] : A(0));
          if ((threadIdx.x & 31) == 0) {
            atomicAdd(static_cast<A*>(p.grad_B) + btn + n, to_b);
            atomicAdd(static_cast<A*>(p.grad_C) + btn + n, to_c);
          }
        }
      }
      if (active) {
        static_cast<T*>(p.grad_u)[bte] = fromAcc<T>(g_u);
        static_cast<T*>(p.grad_delta)[bte] = fromAcc<T>(g_dt);
      }
    }
  }
  if (!active) return;
#pragma unroll
  for (int n = 0; n < kMaxN; ++n) {
    if (n < N) static_cast<A*>(p.grad_A_parts)[(b * E + e) * N + n] = ga[n];
  }
  if (p.grad_D_parts) static_cast<A*>(p.grad_D_parts)[b * E + e] = gd;
}

template <typename T, int kMaxN>
cudaError_t launchScan(bool backward, const ScanArgs& args, cudaStream_t stream) {
  const unsigned int threads = backward ? 64 : 128;  // multiples of the warp, as the B/C sums need
  const dim3 grid(ceilDiv(args.channels, threads), static_cast<unsigned int>(args.batch));
  if (backward) {
    scanBackwardKernel<T, kMaxN><<<grid, threads, 0, stream>>>(args);
  } else {
    scanForwardKernel<T, kMaxN><<<grid, threads, 0, stream>>>(args);
  }
  return cudaGetLastError();
}

// The smallest instantiated state bound >= N.
template <typename T>
cudaError_t launchForState(bool backward, const ScanArgs& args, cudaStream_t stream) {
  if (args.state <= 8) return launchScan<T, 8>(backward, args, stream);
  if (args.state <= 16) return launchScan<T, 16>(backward, args, stream);
  if (args.state <= 32) return launchScan<T, 32>(backward, args, stream);
  if (args.state <= kScanMaxState) return launchScan<T, kScanMaxState>(backward, args, stream);
  return cudaErrorInvalidValue;
}

}  // namespace

cudaError_t selectiveScanForward(Dtype dtype, const void* u, const void* delta, const void* A, const void* Bm,
                                 const void* Cm, const void* D, void* y, int64_t batch, int64_t length,
                                 int64_t channels, int64_t state, bool lane_per_state, cudaStream_t stream) {
  if (batch == 0 || length == 0 || channels == 0) return cudaSuccess;
  ScanArgs args{};
  args.u = u, args.delta = delta, args.A = A, args.B = Bm, args.C = Cm, args.D = D, args.y = y;
  args.batch = batch, args.length = length, args.channels = channels, args.state = state;
  return dispatchDtype(dtype, [&](auto tag) {
    using T = decltype(tag);
    if (lane_per_state && state <= kScanMaxLaneState) return launchForwardLanes<T>(args, stream);
    return launchForState<T>(false, args, stream);
  });
}

int64_t selectiveScanBackwardWorkspace(int64_t batch, int64_t length, int64_t channels, int64_t state) {
  return batch * channels * ((length + kScanChunk - 1) / kScanChunk) * state;
}

cudaError_t selectiveScanBackward(Dtype dtype, const void* u, const void* delta, const void* A, const void* Bm,
                                  const void* Cm, const void* D, const void* grad_y, void* grad_u, void* grad_delta,
                                  void* grad_A_parts, void* grad_B, void* grad_C, void* grad_D_parts, void* workspace,
                                  int64_t batch, int64_t length, int64_t channels, int64_t state, cudaStream_t stream) {
  const size_t acc_size = dtype == Dtype::kDouble ? sizeof(double) : sizeof(float);
  // Zero every accumulator first, so an empty shape still leaves defined gradients.
  for (auto [ptr, count] : {std::pair<void*, int64_t>{grad_B, batch * length * state},
                            std::pair<void*, int64_t>{grad_C, batch * length * state},
                            std::pair<void*, int64_t>{grad_A_parts, batch * channels * state},
                            std::pair<void*, int64_t>{grad_D_parts, batch * channels}}) {
    if (ptr && count > 0) {
      const cudaError_t err = cudaMemsetAsync(ptr, 0, acc_size * count, stream);
      if (err != cudaSuccess) return err;
    }
  }
  if (batch == 0 || length == 0 || channels == 0) return cudaSuccess;
  ScanArgs args{};
  args.u = u, args.delta = delta, args.A = A, args.B = Bm, args.C = Cm, args.D = D, args.grad_y = grad_y;
  args.grad_u = grad_u, args.grad_delta = grad_delta, args.grad_A_parts = grad_A_parts, args.grad_B = grad_B;
  args.grad_C = grad_C, args.grad_D_parts = grad_D_parts, args.checkpoints = workspace;
  args.batch = batch, args.length = length, args.channels = channels, args.state = state;
  return dispatchDtype(dtype, [&](auto tag) { return launchForState<decltype(tag)>(true, args, stream); });
}

}  // namespace mixerlab::kernels::cuda
