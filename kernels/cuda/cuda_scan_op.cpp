// The CUDA selective scan as an autograd function (see cuda_ops.h): forward keeps only the
// inputs, backward reruns the scan in chunks inside the kernel (kernels/cuda/selective_scan.cu).
// Built only with MIXERLAB_WITH_CUDA.
#include <ATen/core/grad_mode.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/util/Exception.h>
#include <torch/csrc/autograd/custom_function.h>

#include "kernels/cuda/cuda_ops.h"
#include "kernels/cuda/cuda_status.h"
#include "kernels/cuda/launch.h"
#include "kernels/selective_scan.h"

namespace mixerlab::kernels {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

cuda::Dtype scanDtype(at::ScalarType type) {
  if (type == at::kDouble) return cuda::Dtype::kDouble;
  if (type == at::kHalf) return cuda::Dtype::kHalf;
  if (type == at::kBFloat16) return cuda::Dtype::kBFloat16;
  return cuda::Dtype::kFloat;
}

class CudaScanFunction : public torch::autograd::Function<CudaScanFunction> {
 public:
  // D_in: [E], or empty for "no D".
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& u_in, const at::Tensor& delta_in,
                            const at::Tensor& A_in, const at::Tensor& B_in, const at::Tensor& C_in,
                            const at::Tensor& D_in) {
    const c10::cuda::CUDAGuard guard(u_in.device());
    const at::Tensor u = u_in.contiguous(), delta = delta_in.contiguous(), A = A_in.contiguous();
    const at::Tensor B = B_in.contiguous(), C = C_in.contiguous(), D = D_in.contiguous();
    const bool has_D = D.numel() > 0;
    ctx->save_for_backward({u, delta, A, B, C, D});
    ctx->saved_data["has_D"] = has_D;
    at::Tensor y = at::empty_like(u);
    checkCudaStatus(cuda::selectiveScanForward(scanDtype(u.scalar_type()), u.data_ptr(), delta.data_ptr(), A.data_ptr(),
                                               B.data_ptr(), C.data_ptr(), has_D ? D.data_ptr() : nullptr, y.data_ptr(),
                                               u.size(0), u.size(1), u.size(2), A.size(1),
                                               scanForwardKernel() == ScanForwardKernel::kLanePerState,
                                               at::cuda::getCurrentCUDAStream()),
                    "selectiveScanForward");
    return y;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    TORCH_CHECK(!at::GradMode::is_enabled(), "CUDA selective scan: double backward is not supported");
    const auto saved = ctx->get_saved_variables();
    const at::Tensor &u = saved[0], &delta = saved[1], &A = saved[2], &B = saved[3], &C = saved[4], &D = saved[5];
    const bool has_D = ctx->saved_data["has_D"].toBool();
    const c10::cuda::CUDAGuard guard(u.device());
    const at::Tensor grad_y = grad_outputs[0].contiguous();
    const int64_t batch = u.size(0), length = u.size(1), channels = u.size(2), state = A.size(1);
    const auto acc = u.options().dtype(u.scalar_type() == at::kDouble ? at::kDouble : at::kFloat);
    at::Tensor grad_u = at::empty_like(u), grad_delta = at::empty_like(delta);
    at::Tensor grad_A_parts = at::empty({batch, channels, state}, acc);
    at::Tensor grad_B = at::empty({batch, length, state}, acc), grad_C = at::empty({batch, length, state}, acc);
    at::Tensor grad_D_parts = has_D ? at::empty({batch, channels}, acc) : at::Tensor();
    at::Tensor workspace = at::empty({cuda::selectiveScanBackwardWorkspace(batch, length, channels, state)}, acc);
    checkCudaStatus(
        cuda::selectiveScanBackward(
            scanDtype(u.scalar_type()), u.data_ptr(), delta.data_ptr(), A.data_ptr(), B.data_ptr(), C.data_ptr(),
            has_D ? D.data_ptr() : nullptr, grad_y.data_ptr(), grad_u.data_ptr(), grad_delta.data_ptr(),
            grad_A_parts.data_ptr(), grad_B.data_ptr(), grad_C.data_ptr(), has_D ? grad_D_parts.data_ptr() : nullptr,
            workspace.data_ptr(), batch, length, channels, state, at::cuda::getCurrentCUDAStream()),
        "selectiveScanBackward");
    const auto type = u.scalar_type();
    return {grad_u,          grad_delta,      grad_A_parts.sum(0).to(type),
            grad_B.to(type), grad_C.to(type), has_D ? grad_D_parts.sum(0).to(type) : at::Tensor()};
  }
};

}  // namespace

bool cudaScanSupports(const at::Tensor& u, const at::Tensor& delta, const at::Tensor& A, const at::Tensor& B,
                      const at::Tensor& C, const at::Tensor& D) {
  const auto dtype = u.scalar_type();
  if (!u.is_cuda() || A.dim() != 2 || A.size(1) > cuda::kScanMaxState) return false;
  if (dtype != at::kFloat && dtype != at::kDouble && dtype != at::kHalf && dtype != at::kBFloat16) return false;
  for (const at::Tensor* t : {&delta, &A, &B, &C, &D}) {
    if (t->defined() && (t->device() != u.device() || t->scalar_type() != dtype)) return false;
  }
  return true;
}

at::Tensor cudaSelectiveScan(const at::Tensor& u, const at::Tensor& delta, const at::Tensor& A, const at::Tensor& B,
                             const at::Tensor& C, const at::Tensor& D) {
  TORCH_CHECK(cudaScanSupports(u, delta, A, B, C, D), "cudaSelectiveScan: unsupported tensors");
  return CudaScanFunction::apply(u, delta, A, B, C, D.defined() ? D : at::empty({0}, u.options()));
}

}  // namespace mixerlab::kernels
