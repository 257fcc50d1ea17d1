// One-row products for the decoders (see row_products.h).
#include "core/models/row_products.h"

#include <torch/torch.h>

namespace mixerlab {

at::Tensor rowLinear(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias) {
  return bias.defined() ? at::addmv(bias, weight, x) : at::mv(weight, x);
}

at::Tensor decodeLinear(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias) {
  const int64_t in = weight.size(1);
  if (x.numel() != in) return torch::nn::functional::linear(x, weight, bias);
  std::vector<int64_t> shape = x.sizes().vec();
  shape.back() = weight.size(0);
  return rowLinear(x.reshape({in}), weight, bias).view(shape);
}

at::Tensor decodeLinear(torch::nn::LinearImpl& linear, const at::Tensor& x) {
  if (x.numel() != linear.weight.size(1)) return linear.forward(x);  // the module's own path (BiasFusedLinear on CUDA)
  return decodeLinear(x, linear.weight, linear.bias);
}

}  // namespace mixerlab
