// nn.Linear with the bias in the GEMM on a GPU (see bias_fused_linear.h).
#include "core/models/bias_fused_linear.h"

#include <ATen/ATen.h>

namespace mixerlab {

at::Tensor BiasFusedLinearImpl::forward(const at::Tensor& input) {
  if (input.is_cuda()) return at::linear(input, weight, bias);
  return torch::nn::LinearImpl::forward(input);
}

}  // namespace mixerlab
