// Device helpers shared by the kernels in kernels/cuda/*.cu: the accumulator type of each element
// type, loads and stores through it, block sums, and the Dtype -> element type dispatch.
#pragma once

#include <cstdint>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "kernels/cuda/launch.h"

namespace mixerlab::kernels::cuda {

template <typename T>
struct Acc {
  using type = float;
};
template <>
struct Acc<double> {
  using type = double;
};
template <typename T>
using acc_t = typename Acc<T>::type;

__device__ __forceinline__ float toAcc(float v) { return v; }
__device__ __forceinline__ double toAcc(double v) { return v; }
__device__ __forceinline__ float toAcc(__half v) { return __half2float(v); }
__device__ __forceinline__ float toAcc(__nv_bfloat16 v) { return __bfloat162float(v); }

template <typename T>
__device__ __forceinline__ T fromAcc(acc_t<T> v);
template <>
__device__ __forceinline__ float fromAcc<float>(float v) {
  return v;
}
template <>
__device__ __forceinline__ double fromAcc<double>(double v) {
  return v;
}
template <>
__device__ __forceinline__ __half fromAcc<__half>(float v) {
  return __float2half(v);
}
template <>
__device__ __forceinline__ __nv_bfloat16 fromAcc<__nv_bfloat16>(float v) {
  return __float2bfloat16(v);
}

__device__ __forceinline__ float expAcc(float v) { return __expf(v); }
__device__ __forceinline__ double expAcc(double v) { return exp(v); }

// Sum of one value per thread over the whole block (blockDim.x a multiple of 32, <= 1024). Every
// thread gets the result. `scratch` holds 32 values; the call ends with a barrier so it can be reused.
template <typename A>
__device__ A blockSum(A v, A* scratch) {
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  A total = 0;
  for (int i = 0; i < warps; ++i) total += scratch[i];
  __syncthreads();
  return total;
}

// Runs f(T{}) with T the element type of `dtype`.
template <typename F>
cudaError_t dispatchDtype(Dtype dtype, F&& f) {
  switch (dtype) {
    case Dtype::kFloat:
      return f(float{});
    case Dtype::kDouble:
      return f(double{});
    case Dtype::kHalf:
      return f(__half{});
    case Dtype::kBFloat16:
      return f(__nv_bfloat16{});
  }
  return cudaErrorInvalidValue;
}

inline unsigned int ceilDiv(int64_t a, int64_t b) { return static_cast<unsigned int>((a + b - 1) / b); }

}  // namespace mixerlab::kernels::cuda
