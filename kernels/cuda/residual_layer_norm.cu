// CUDA kernels of the fused residual add + LayerNorm (kernels/residual_layer_norm.h). Forward: one
// block per row writes s = x + residual, reduces its mean and (two-pass) variance in shared
// memory, writes out, mean and rstd. Backward: one block per row for ds (grad_sum plus the
// LayerNorm backward, two row sums), then a column kernel over row chunks for the weight and bias
// gradients (partial sums per chunk, summed by the caller in a fixed order). T is the type of x, the
// sum, the weight and the bias; R that of the residual, the output and their gradients: T = R, or
// T = float with R half or bfloat16 (an fp32 residual stream under autocast). Tried on an H200 and
// slower, so not kept (docs/kernels.md): rows held in registers with the backward's weight/bias
// sums fused in, and one warp per row.
#include "kernels/cuda/common.cuh"

namespace mixerlab::kernels::cuda {

namespace {

constexpr int kRowThreads = 256;
constexpr int64_t kRowsPerChunk = 64;
template <typename T, typename R>
__global__ void __launch_bounds__(kRowThreads)
    forwardKernel(const T* x, const R* r, const T* w, const T* bias, R* out, T* sum, acc_t<T>* mean, acc_t<T>* rstd,
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
    out[o + d] = fromAcc<R>((toAcc(sum[o + d]) - mu) * inv * toAcc(w[d]) + toAcc(bias[d]));
  }
  if (threadIdx.x == 0) {
    mean[blockIdx.x] = mu;
    rstd[blockIdx.x] = inv;
  }
}

// g_r (the residual's gradient in its own type) is written only when R differs from T.
template <typename T, typename R>
__global__ void __launch_bounds__(kRowThreads)
    backwardRowKernel(const R* g_out, const T* g_sum, const T* sum, const acc_t<T>* mean, const acc_t<T>* rstd,
                      const T* w, T* g_x, R* g_r, int64_t width) {
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
    const A ds = carried + inv * (g - mean_g - xhat * mean_g_xhat);
    g_x[o + d] = fromAcc<T>(ds);
    if (g_r) g_r[o + d] = fromAcc<R>(ds);
  }
}

// Thread per column d, block row y per chunk of kRowsPerChunk rows.
template <typename T, typename R>
__global__ void paramGradKernel(const R* g_out, const T* sum, const acc_t<T>* mean, const acc_t<T>* rstd, int64_t rows,
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

// Runs f(T{}, R{}) for the supported pairs: R = T, or T = float with R = half or bfloat16.
template <typename F>
cudaError_t dispatchPair(Dtype dtype, Dtype residual_dtype, F&& f) {
  if (residual_dtype == dtype) return dispatchDtype(dtype, [&](auto tag) { return f(tag, tag); });
  if (dtype != Dtype::kFloat) return cudaErrorInvalidValue;
  if (residual_dtype == Dtype::kBFloat16) return f(float{}, __nv_bfloat16{});
  if (residual_dtype == Dtype::kHalf) return f(float{}, __half{});
  return cudaErrorInvalidValue;
}

}  // namespace

cudaError_t residualLayerNormForward(Dtype dtype, Dtype residual_dtype, const void* x, const void* residual,
                                     const void* weight, const void* bias, void* out, void* sum, void* mean, void* rstd,
                                     int64_t rows, int64_t width, double eps, cudaStream_t stream) {
  if (rows == 0 || width == 0) return cudaSuccess;
  return dispatchPair(dtype, residual_dtype, [&](auto tag, auto residual_tag) {
    using T = decltype(tag);
    using R = decltype(residual_tag);
    forwardKernel<T, R><<<static_cast<unsigned int>(rows), kRowThreads, 0, stream>>>(
        static_cast<const T*>(x), static_cast<const R*>(residual), static_cast<const T*>(weight),
        static_cast<const T*>(bias), static_cast<R*>(out), static_cast<T*>(sum), static_cast<acc_t<T>*>(mean),
        static_cast<acc_t<T>*>(rstd), width, eps);
    return cudaGetLastError();
  });
}

int64_t residualLayerNormChunks(int64_t rows) { return rows == 0 ? 1 : (rows + kRowsPerChunk - 1) / kRowsPerChunk; }

cudaError_t residualLayerNormBackward(Dtype dtype, Dtype residual_dtype, const void* grad_out, const void* grad_sum,
                                      const void* sum, const void* mean, const void* rstd, const void* weight,
                                      void* grad_x, void* grad_residual, void* grad_w_parts, void* grad_b_parts,
                                      int64_t rows, int64_t width, cudaStream_t stream) {
  if (width == 0) return cudaSuccess;
  return dispatchPair(dtype, residual_dtype, [&](auto tag, auto residual_tag) {
    using T = decltype(tag);
    using R = decltype(residual_tag);
    using A = acc_t<T>;
    if (rows == 0) {  // one chunk of zeros
      cudaError_t err = cudaMemsetAsync(grad_w_parts, 0, sizeof(A) * width, stream);
      if (err == cudaSuccess) err = cudaMemsetAsync(grad_b_parts, 0, sizeof(A) * width, stream);
      return err;
    }
    backwardRowKernel<T, R><<<static_cast<unsigned int>(rows), kRowThreads, 0, stream>>>(
        static_cast<const R*>(grad_out), static_cast<const T*>(grad_sum), static_cast<const T*>(sum),
        static_cast<const A*>(mean), static_cast<const A*>(rstd), static_cast<const T*>(weight),
        static_cast<T*>(grad_x), static_cast<R*>(grad_residual), width);
    const dim3 grid(ceilDiv(width, 128), static_cast<unsigned int>(residualLayerNormChunks(rows)));
    paramGradKernel<T, R><<<grid, 128, 0, stream>>>(
        static_cast<const R*>(grad_out), static_cast<const T*>(sum), static_cast<const A*>(mean),
        static_cast<const A*>(rstd), rows, width, static_cast<A*>(grad_w_parts), static_cast<A*>(grad_b_parts));
    return cudaGetLastError();
  });
}

}  // namespace mixerlab::kernels::cuda
