// Turns the cudaError_t a kernel launcher (kernels/cuda/launch.h) returns into a torch error that
// names the kernel. Shared by the torch-facing wrappers (cuda_ops.cpp, cuda_scan_op.cpp).
#pragma once

#include <c10/util/Exception.h>
#include <cuda_runtime_api.h>

namespace mixerlab::kernels {

inline void checkCudaStatus(cudaError_t err, const char* what) {
  TORCH_CHECK(err == cudaSuccess, what, ": ", cudaGetErrorString(err));
}

}  // namespace mixerlab::kernels
