// CUDA kernels of the fused residual add + LayerNorm (kernels/residual_layer_norm.h). Forward: one
// block per row writes s = x + residual, reduces its mean and (two-pass) variance in shared
// memory, writes out, mean and rstd. Backward: one block per row for ds (grad_sum plus the
// LayerNorm backward, two row sums), then a column kernel over row chunks for the weight and bias
// gradients (partial sums per chunk, summed by the caller in a fixed order).
#include "kernels/cuda/common.cuh"

namespace mixerlab::kernels::cuda {

namespace {

constexpr int kRowThreads = 256;
constexpr int64_t kRowsPerChunk = 64;

template <typename T>
__global__ void __launch_bounds__(kRowThreads)
    forwardKernel(const T* x, const T* r, const T* w, const T* bias, T* out, T* sum, acc_t<T>* mean, acc_t<T>* rstd,
                  int64_t width, double eps) {
  using A = acc_t<T>;
  __shared__ A scratch[32];
  const int64_t o = static_cast<int64_t>(blockIdx.x) * width;
  A total = 0;
  for (int64_t d = threadIdx.x; d < width; d += blockDim.x) {
    const T s = fromAcc<T>(toAcc(x[o + d]) + toAcc(r[o + d]));  // rounded as the unfused add would
    sum[o + d] = s;
    total += toAcc(s);
  }
  const A mu = blockSum(total, scratch) / static_cast<A>(width);
  A squares = 0;
  for (int64_t d = threadIdx.x; d < width; d += blockDim.x) {
    const A c = toAcc(sum[o + d]) - mu;
    squares += c * c;
  }
  const A inv = A(1) / sqrt(blockSum(squares, scratch) / static_cast<A>(width) + static_cast<A>(eps));
  for (int64_t d = threadIdx.x; d < width; d += blockDim.x) {
    out[o + d] = fromAcc<T>((toAcc(sum[o + d]) - mu) * inv * toAcc(w[d]) + toAcc(bias[d]));
  }
  if (threadIdx.x == 0) {
    mean[blockIdx.x] = mu;
    rstd[blockIdx.x] = inv;
  }
}

template <typename T>
__global__ void __launch_bounds__(kRowThreads)
    backwardRowKernel(const T* g_out, const T* g_sum, const T* sum, const acc_t<T>* mean, const acc_t<T>* rstd,
                      const T* w, T* g_x, int64_t width) {
  using A = acc_t<T>;
  __shared__ A scratch[32];
  const int64_t o = static_cast<int64_t>(blockIdx.x) * width;
  const A mu = mean[blockIdx.x], inv = rstd[blockIdx.x];
  A sum_g = 0, sum_g_xhat = 0;
  for (int64_t d = threadIdx.x; d < width; d += blockDim.x) {
    const A g = toAcc(g_out[o + d]) * toAcc(w[d]);
    sum_g += g;
    sum_g_xhat += g * (toAcc(sum[o + d]) - mu) * inv;
  }
  const A mean_g = blockSum(sum_g, scratch) / static_cast<A>(width);
  const A mean_g_xhat = blockSum(sum_g_xhat, scratch) / static_cast<A>(width);
  for (int64_t d = threadIdx.x; d < width; d += blockDim.x) {
    const A g = toAcc(g_out[o + d]) * toAcc(w[d]);
    const A xhat = (toAcc(sum[o + d]) - mu) * inv;
    const A carried = g_sum ? toAcc(g_sum[o + d]) : A(0);
    g_x[o + d] = fromAcc<T>(carried + inv * (g - mean_g - xhat * mean_g_xhat));
  }
}

// Thread per column d, block row y per chunk of kRowsPerChunk rows.
template <typename T>
__global__ void paramGradKernel(const T* g_out, const T* sum, const acc_t<T>* mean, const acc_t<T>* rstd, int64_t rows,
                                int64_t width, acc_t<T>* g_w_parts, acc_t<T>* g_b_parts) {
  using A = acc_t<T>;
  const int64_t d = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (d >= width) return;
  const int64_t chunk = blockIdx.y, r0 = chunk * kRowsPerChunk;
  const int64_t r1 = min(rows, r0 + kRowsPerChunk);
  A gw = 0, gb = 0;
  for (int64_t r = r0; r < r1; ++r) {
    const A g = toAcc(g_out[r * width + d]);
    gw += g * (toAcc(sum[r * width + d]) - mean[r]) * rstd[r];
    gb += g;
  }
  g_w_parts[chunk * width + d] = gw;
  g_b_parts[chunk * width + d] = gb;
}

}  // namespace

cudaError_t residualLayerNormForward(Dtype dtype, const void* x, const void* residual, const void* weight,
                                     const void* bias, void* out, void* sum, void* mean, void* rstd, int64_t rows,
                                     int64_t width, double eps, cudaStream_t stream) {
  if (rows == 0 || width == 0) return cudaSuccess;
  return dispatchDtype(dtype, [&](auto tag) {
    using T = decltype(tag);
    forwardKernel<T><<<static_cast<unsigned int>(rows), kRowThreads, 0, stream>>>(
        static_cast<const T*>(x), static_cast<const T*>(residual), static_cast<const T*>(weight),
        static_cast<const T*>(bias), static_cast<T*>(out), static_cast<T*>(sum), static_cast<acc_t<T>*>(mean),
        static_cast<acc_t<T>*>(rstd), width, eps);
    return cudaGetLastError();
  });
}

int64_t residualLayerNormChunks(int64_t rows) { return rows == 0 ? 1 : (rows + kRowsPerChunk - 1) / kRowsPerChunk; }

cudaError_t residualLayerNormBackward(Dtype dtype, const void* grad_out, const void* grad_sum, const void* sum,
                                      const void* mean, const void* rstd, const void* weight, void* grad_x,
                                      void* grad_w_parts, void* grad_b_parts, int64_t rows, int64_t width,
                                      cudaStream_t stream) {
  if (width == 0) return cudaSuccess;
  return dispatchDtype(dtype, [&](auto tag) {
    using T = decltype(tag);
    using A = acc_t<T>;
    if (rows == 0) {  // one chunk of zeros
      cudaError_t err = cudaMemsetAsync(grad_w_parts, 0, sizeof(A) * width, stream);
      if (err == cudaSuccess) err = cudaMemsetAsync(grad_b_parts, 0, sizeof(A) * width, stream);
      return err;
    }
    backwardRowKernel<T><<<static_cast<unsigned int>(rows), kRowThreads, 0, stream>>>(
        static_cast<const T*>(grad_out), static_cast<const T*>(grad_sum), static_cast<const T*>(sum),
        static_cast<const A*>(mean), static_cast<const A*>(rstd), static_cast<const T*>(weight),
        static_cast<T*>(grad_x), width);
    const dim3 grid(ceilDiv(width, 128), static_cast<unsigned int>(residualLayerNormChunks(rows)));
    paramGradKernel<T><<<grid, 128, 0, stream>>>(static_cast<const T*>(grad_out), static_cast<const T*>(sum),
                                                 static_cast<const A*>(mean), static_cast<const A*>(rstd), rows, width,
                                                 static_cast<A*>(grad_w_parts), static_cast<A*>(grad_b_parts));
    return cudaGetLastError();
  });
}

}  // namespace mixerlab::kernels::cuda
