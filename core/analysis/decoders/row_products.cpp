// One-row products for the decoders (see row_products.h).
#include "core/analysis/decoders/row_products.h"

#include <torch/torch.h>

namespace mixerlab {

at::Tensor rowLinear(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias) {
  return bias.defined() ? at::addmv(bias, weight, x) : at::mv(weight, x);
}

at::Tensor decodeLinear(torch::nn::LinearImpl& linear, const at::Tensor& x) {
  const int64_t in = linear.weight.size(1);
  if (x.numel() != in) return linear.forward(x);
  std::vector<int64_t> shape = x.sizes().vec();
  shape.back() = linear.weight.size(0);
  return rowLinear(x.reshape({in}), linear.weight, linear.bias).view(shape);
}

}  // namespace mixerlab
