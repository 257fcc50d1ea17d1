// CUDA kernels of the causal token mix (kernels/causal_token_mix.h): y = tril(W) x + b, its input
// gradient tril(W)^T dy and its weight gradient tril(sum_b dy x^T). All three are one tiled
// product (64 x 64 output tiles, 16-deep slices through shared memory, 4 x 4 outputs per thread)
// whose loops stop at the diagonal: a forward tile of rows [m0, m0+64) reads tokens j < m0+64
// only, an input-gradient tile reads rows i >= m0 only, and weight-gradient tiles wholly above the
// diagonal are not launched. Accumulation in float (double for double inputs).
#include "kernels/cuda/common.cuh"

namespace mixerlab::kernels::cuda {

namespace {

constexpr int kTile = 64, kDepth = 16, kThreads = 256, kPerThread = 4;

enum class Mode { kForward, kInputGrad, kWeightGrad };

struct MixArgs {
  const void* a;  // kForward/kInputGrad: W; kWeightGrad: dy
  const void* b;  // x (kForward, kWeightGrad) or dy (kInputGrad)
  const void* bias;
  void* out;  // y, dx, or the float/double partial tiles of dW
  int64_t w_stride, batch, length, width, k_per_split;
};

// One 64 x 64 output tile. Operand A(m, k) and B(k, n) per mode:
//   kForward:    A = W[m, k] (k <= m),  B = x[b, k, n],   m, k tokens, n features, k in [0, m0+64)
//   kInputGrad:  A = W[k, m] (k >= m),  B = dy[b, k, n],  k in [m0, L)
//   kWeightGrad: A = dy[b, m, d],       B = x[b, n, d],   k = b*D + d over this split's range
template <typename T, Mode kMode>
__global__ void __launch_bounds__(kThreads) mixTileKernel(MixArgs args) {
  using A = acc_t<T>;
  __shared__ A as[kDepth][kTile + 1];
  __shared__ A bs[kDepth][kTile + 1];
  const T* pa = static_cast<const T*>(args.a);
  const T* pb = static_cast<const T*>(args.b);
  const int64_t L = args.length, D = args.width;
  const int64_t m0 = static_cast<int64_t>(blockIdx.y) * kTile, n0 = static_cast<int64_t>(blockIdx.x) * kTile;
  const int64_t batch_row = kMode == Mode::kWeightGrad ? 0 : blockIdx.z;
  const int64_t cols = kMode == Mode::kWeightGrad ? L : D;        // n runs over tokens j for dW
  if (kMode == Mode::kWeightGrad && n0 > m0 + kTile - 1) return;  // wholly above the diagonal
  int64_t k_begin = 0, k_end = 0;
  if (kMode == Mode::kForward) {
    k_end = min(L, m0 + kTile);
  } else if (kMode == Mode::kInputGrad) {
    k_begin = m0;
    k_end = L;
  } else {
    k_begin = static_cast<int64_t>(blockIdx.z) * args.k_per_split;
    k_end = min(args.batch * D, k_begin + args.k_per_split);
  }
  const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
  A acc[kPerThread][kPerThread] = {};
  for (int64_t k0 = k_begin; k0 < k_end; k0 += kDepth) {
    for (int e = tid; e < kTile * kDepth; e += kThreads) {
      // A slice: as[k][m]. Index order picks the operand's contiguous axis for neighbouring threads.
      int kk, mm;
      if (kMode == Mode::kInputGrad) {
        mm = e % kTile;
        kk = e / kTile;
      } else {
        kk = e % kDepth;
        mm = e / kDepth;
      }
      const int64_t m = m0 + mm, k = k0 + kk;
      A va = 0;
      if (m < L && k < k_end) {
        if (kMode == Mode::kForward) {
          if (k <= m) va = toAcc(pa[m * args.w_stride + k]);
        } else if (kMode == Mode::kInputGrad) {
          if (k >= m) va = toAcc(pa[k * args.w_stride + m]);
        } else {
          va = toAcc(pa[((k / D) * L + m) * D + k % D]);
        }
      }
      as[kk][mm] = va;
      // B slice: bs[k][n].
      int kb, nn;
      if (kMode == Mode::kWeightGrad) {
        kb = e % kDepth;
        nn = e / kDepth;
      } else {
        nn = e % kTile;
        kb = e / kTile;
      }
      const int64_t n = n0 + nn, kn = k0 + kb;
      A vb = 0;
      if (n < cols && kn < k_end) {
        if (kMode == Mode::kWeightGrad) {
          vb = toAcc(pb[((kn / D) * L + n) * D + kn % D]);
        } else {
          vb = toAcc(pb[(batch_row * L + kn) * D + n]);
        }
      }
      bs[kb][nn] = vb;
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kDepth; ++kk) {
      A ra[kPerThread], rb[kPerThread];
#pragma unroll
      for (int r = 0; r < kPerThread; ++r) {
        ra[r] = as[kk][ty + 16 * r];
        rb[r] = bs[kk][tx + 16 * r];
      }
#pragma unroll
      for (int r = 0; r < kPerThread; ++r) {
#pragma unroll
        for (int c = 0; c < kPerThread; ++c) acc[r][c] += ra[r] * rb[c];
      }
    }
    __syncthreads();
  }
#pragma unroll
  for (int r = 0; r < kPerThread; ++r) {
    const int64_t m = m0 + ty + 16 * r;
    if (m >= L) continue;
#pragma unroll
    for (int c = 0; c < kPerThread; ++c) {
      const int64_t n = n0 + tx + 16 * c;
      if (n >= cols) continue;
      if (kMode == Mode::kWeightGrad) {
        static_cast<A*>(args.out)[(static_cast<int64_t>(blockIdx.z) * L + m) * L + n] = acc[r][c];
      } else {
        A v = acc[r][c];
        if (kMode == Mode::kForward && args.bias) v += toAcc(static_cast<const T*>(args.bias)[m]);
        static_cast<T*>(args.out)[(batch_row * L + m) * D + n] = fromAcc<T>(v);
      }
    }
  }
}

// grad_w[i, j] = sum over splits of the partial tiles for j <= i, exactly 0 above the diagonal.
template <typename T>
__global__ void reduceWeightGradKernel(const acc_t<T>* parts, int64_t splits, int64_t length, T* grad_w) {
  const int64_t idx = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= length * length) return;
  const int64_t i = idx / length, j = idx % length;
  acc_t<T> s = 0;
  if (j <= i) {
    for (int64_t p = 0; p < splits; ++p) s += parts[p * length * length + idx];
  }
  grad_w[idx] = fromAcc<T>(s);
}

// grad_bias[i] = sum_{b, d} dy[b, i, d]: one block per token.
template <typename T>
__global__ void biasGradKernel(const T* grad_y, int64_t batch, int64_t length, int64_t width, T* grad_bias) {
  __shared__ acc_t<T> scratch[32];
  const int64_t i = blockIdx.x;
  acc_t<T> s = 0;
  for (int64_t e = threadIdx.x; e < batch * width; e += blockDim.x) {
    s += toAcc(grad_y[((e / width) * length + i) * width + e % width]);
  }
  s = blockSum(s, scratch);
  if (threadIdx.x == 0) grad_bias[i] = fromAcc<T>(s);
}

constexpr int64_t kTargetBlocks = 264;  // about two waves on 132 SMs

int64_t weightGradSplits(int64_t batch, int64_t length, int64_t width) {
  const int64_t tiles = (length + kTile - 1) / kTile;
  const int64_t active = tiles * (tiles + 1) / 2;
  const int64_t depth_slices = (batch * width + kDepth - 1) / kDepth;
  int64_t splits = (kTargetBlocks + active - 1) / active;
  if (splits > depth_slices) splits = depth_slices;
  if (splits > 64) splits = 64;
  return splits < 1 ? 1 : splits;
}

}  // namespace

cudaError_t tokenMixForward(Dtype dtype, const void* x, const void* w, int64_t w_stride, const void* bias, void* y,
                            int64_t batch, int64_t length, int64_t width, cudaStream_t stream) {
  if (batch == 0 || length == 0 || width == 0) return cudaSuccess;
  return dispatchDtype(dtype, [&](auto tag) {
    using T = decltype(tag);
    const MixArgs args{w, x, bias, y, w_stride, batch, length, width, 0};
    const dim3 grid(ceilDiv(width, kTile), ceilDiv(length, kTile), static_cast<unsigned int>(batch));
    mixTileKernel<T, Mode::kForward><<<grid, kThreads, 0, stream>>>(args);
    return cudaGetLastError();
  });
}

cudaError_t tokenMixBackwardInput(Dtype dtype, const void* grad_y, const void* w, int64_t w_stride, void* grad_x,
                                  int64_t batch, int64_t length, int64_t width, cudaStream_t stream) {
  if (batch == 0 || length == 0 || width == 0) return cudaSuccess;
  return dispatchDtype(dtype, [&](auto tag) {
    using T = decltype(tag);
    const MixArgs args{w, grad_y, nullptr, grad_x, w_stride, batch, length, width, 0};
    const dim3 grid(ceilDiv(width, kTile), ceilDiv(length, kTile), static_cast<unsigned int>(batch));
    mixTileKernel<T, Mode::kInputGrad><<<grid, kThreads, 0, stream>>>(args);
    return cudaGetLastError();
  });
}

int64_t tokenMixWeightWorkspace(int64_t batch, int64_t length, int64_t width) {
  return weightGradSplits(batch, length, width) * length * length;
}

cudaError_t tokenMixBackwardWeight(Dtype dtype, const void* grad_y, const void* x, void* grad_w, void* grad_bias,
                                   void* workspace, int64_t batch, int64_t length, int64_t width, cudaStream_t stream) {
  if (length == 0) return cudaSuccess;
  return dispatchDtype(dtype, [&](auto tag) {
    using T = decltype(tag);
    const int64_t splits = weightGradSplits(batch, length, width);
    const int64_t depth = batch * width;
    // Whole 16-deep slices per split, so only the last split has a ragged end.
    const int64_t per_split = ((depth + splits - 1) / splits + kDepth - 1) / kDepth * kDepth;
    const int64_t used_splits = per_split > 0 ? (depth + per_split - 1) / per_split : 1;
    auto* parts = static_cast<acc_t<T>*>(workspace);
    if (depth == 0) {
      cudaError_t err = cudaMemsetAsync(parts, 0, sizeof(acc_t<T>) * length * length, stream);
      if (err != cudaSuccess) return err;
    } else {
      const MixArgs args{grad_y, x, nullptr, parts, 0, batch, length, width, per_split};
      const dim3 grid(ceilDiv(length, kTile), ceilDiv(length, kTile), static_cast<unsigned int>(used_splits));
      mixTileKernel<T, Mode::kWeightGrad><<<grid, kThreads, 0, stream>>>(args);
    }
    reduceWeightGradKernel<T><<<ceilDiv(length * length, 256), 256, 0, stream>>>(parts, depth == 0 ? 1 : used_splits,
                                                                                 length, static_cast<T*>(grad_w));
    if (grad_bias) {
      biasGradKernel<T><<<static_cast<unsigned int>(length), 256, 0, stream>>>(
          static_cast<const T*>(grad_y), batch, length, width, static_cast<T*>(grad_bias));
    }
    return cudaGetLastError();
  });
}

}  // namespace mixerlab::kernels::cuda
