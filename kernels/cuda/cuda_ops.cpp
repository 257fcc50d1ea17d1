// Torch-facing wrappers of the CUDA kernels (see cuda_ops.h). Built only with MIXERLAB_WITH_CUDA
// against a CUDA LibTorch; the kernels themselves are in the .cu files beside this one.
#include "kernels/cuda/cuda_ops.h"

#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/util/Exception.h>
#include <torch/csrc/autograd/custom_function.h>

#include "kernels/cuda/cuda_status.h"
#include "kernels/cuda/launch.h"

namespace mixerlab::kernels {

namespace {

cuda::Dtype kernelDtype(at::ScalarType type) {
  switch (type) {
    case at::kFloat:
      return cuda::Dtype::kFloat;
    case at::kDouble:
      return cuda::Dtype::kDouble;
    case at::kHalf:
      return cuda::Dtype::kHalf;
    case at::kBFloat16:
      return cuda::Dtype::kBFloat16;
    default:
      TORCH_CHECK(false, "mixerlab CUDA kernels: unsupported dtype ", type);
  }
  return cuda::Dtype::kFloat;
}

// The accumulator dtype of the kernels: double for double, float otherwise.
at::TensorOptions accOptions(const at::Tensor& t) {
  return t.options().dtype(t.scalar_type() == at::kDouble ? at::kDouble : at::kFloat);
}

void checkCuda(const at::Tensor& ref, std::initializer_list<const at::Tensor*> others, const char* what) {
  TORCH_CHECK(ref.is_cuda(), what, ": expected CUDA tensors");
  for (const at::Tensor* t : others) {
    if (!t->defined()) continue;
    TORCH_CHECK(t->device() == ref.device() && t->scalar_type() == ref.scalar_type(), what,
                ": tensors must share one device and dtype");
  }
}

}  // namespace

at::Tensor tokenMixForwardCuda(const at::Tensor& x_in, const at::Tensor& w_in, const at::Tensor& bias_in) {
  checkCuda(x_in, {&w_in, &bias_in}, "tokenMixForwardCuda");
  const c10::cuda::CUDAGuard guard(x_in.device());
  const at::Tensor x = x_in.contiguous();
  const at::Tensor w = w_in.stride(1) == 1 ? w_in : w_in.contiguous();
  const at::Tensor bias = bias_in.defined() ? bias_in.contiguous() : at::Tensor();
  at::Tensor y = at::empty_like(x);
  checkCudaStatus(cuda::tokenMixForward(kernelDtype(x.scalar_type()), x.data_ptr(), w.data_ptr(), w.stride(0),
                                        bias.defined() ? bias.data_ptr() : nullptr, y.data_ptr(), x.size(0), x.size(1),
                                        x.size(2), at::cuda::getCurrentCUDAStream()),
                  "tokenMixForward");
  return y;
}

TokenMixGradients tokenMixBackwardCuda(const at::Tensor& grad_y_in, const at::Tensor& x_in, const at::Tensor& w_in,
                                       bool with_bias) {
  checkCuda(x_in, {&grad_y_in, &w_in}, "tokenMixBackwardCuda");
  const c10::cuda::CUDAGuard guard(x_in.device());
  const at::Tensor x = x_in.contiguous(), grad_y = grad_y_in.contiguous();
  const at::Tensor w = w_in.stride(1) == 1 ? w_in : w_in.contiguous();
  const int64_t batch = x.size(0), length = x.size(1), width = x.size(2);
  const auto dtype = kernelDtype(x.scalar_type());
  const auto stream = at::cuda::getCurrentCUDAStream();
  TokenMixGradients g;
  g.x = at::empty_like(x);
  g.weight = at::empty({length, length}, x.options());
  if (with_bias) g.bias = at::empty({length}, x.options());
  at::Tensor workspace = at::empty({cuda::tokenMixWeightWorkspace(batch, length, width)}, accOptions(x));
  checkCudaStatus(cuda::tokenMixBackwardInput(dtype, grad_y.data_ptr(), w.data_ptr(), w.stride(0), g.x.data_ptr(),
                                              batch, length, width, stream),
                  "tokenMixBackwardInput");
  checkCudaStatus(cuda::tokenMixBackwardWeight(dtype, grad_y.data_ptr(), x.data_ptr(), g.weight.data_ptr(),
                                               with_bias ? g.bias.data_ptr() : nullptr, workspace.data_ptr(), batch,
                                               length, width, stream),
                  "tokenMixBackwardWeight");
  return g;
}

ResidualLayerNormForward residualLayerNormForwardCuda(const at::Tensor& x_in, const at::Tensor& r_in,
                                                      const at::Tensor& w_in, const at::Tensor& b_in, double eps) {
  checkCuda(x_in, {&w_in, &b_in}, "residualLayerNormForwardCuda");
  TORCH_CHECK(r_in.device() == x_in.device(), "residualLayerNormForwardCuda: tensors must share one device");
  const c10::cuda::CUDAGuard guard(x_in.device());
  const at::Tensor x = x_in.contiguous(), r = r_in.contiguous(), w = w_in.contiguous(), b = b_in.contiguous();
  const int64_t width = x.size(-1), rows = width > 0 ? x.numel() / width : 0;
  ResidualLayerNormForward f;
  f.out = at::empty_like(r);
  f.sum = at::empty_like(x);
  f.mean = at::empty({rows}, accOptions(x));
  f.rstd = at::empty({rows}, accOptions(x));
  checkCudaStatus(cuda::residualLayerNormForward(kernelDtype(x.scalar_type()), kernelDtype(r.scalar_type()),
                                                 x.data_ptr(), r.data_ptr(), w.data_ptr(), b.data_ptr(),
                                                 f.out.data_ptr(), f.sum.data_ptr(), f.mean.data_ptr(),
                                                 f.rstd.data_ptr(), rows, width, eps, at::cuda::getCurrentCUDAStream()),
                  "residualLayerNormForward");
  return f;
}

ResidualLayerNormGradients residualLayerNormBackwardCuda(const at::Tensor& grad_out, const at::Tensor& grad_sum,
                                                         const at::Tensor& sum, const at::Tensor& mean,
                                                         const at::Tensor& rstd, const at::Tensor& weight) {
  checkCuda(sum, {&grad_sum, &weight}, "residualLayerNormBackwardCuda");
  TORCH_CHECK(grad_out.device() == sum.device(), "residualLayerNormBackwardCuda: tensors must share one device");
  const c10::cuda::CUDAGuard guard(sum.device());
  const at::Tensor g_out = grad_out.contiguous(), w = weight.contiguous();
  const at::Tensor g_sum = grad_sum.defined() ? grad_sum.contiguous() : at::Tensor();
  const int64_t width = sum.size(-1), rows = width > 0 ? sum.numel() / width : 0;
  const int64_t chunks = cuda::residualLayerNormChunks(rows);
  at::Tensor g_w_parts = at::empty({chunks, width}, accOptions(sum));
  at::Tensor g_b_parts = at::empty({chunks, width}, accOptions(sum));
  const bool mixed = g_out.scalar_type() != sum.scalar_type();
  ResidualLayerNormGradients g;
  g.x = at::empty_like(sum);
  if (mixed) g.residual = at::empty_like(g_out);
  checkCudaStatus(
      cuda::residualLayerNormBackward(kernelDtype(sum.scalar_type()), kernelDtype(g_out.scalar_type()),
                                      g_out.data_ptr(), g_sum.defined() ? g_sum.data_ptr() : nullptr, sum.data_ptr(),
                                      mean.contiguous().data_ptr(), rstd.contiguous().data_ptr(), w.data_ptr(),
                                      g.x.data_ptr(), mixed ? g.residual.data_ptr() : nullptr, g_w_parts.data_ptr(),
                                      g_b_parts.data_ptr(), rows, width, at::cuda::getCurrentCUDAStream()),
      "residualLayerNormBackward");
  g.weight = g_w_parts.sum(0).to(weight.scalar_type());
  g.bias = g_b_parts.sum(0).to(weight.scalar_type());
  return g;
}

}  // namespace mixerlab::kernels
