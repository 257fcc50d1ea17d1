// nn.Linear whose bias goes into the matrix product on a GPU. LibTorch's C++ Linear
// (torch::nn::functional::linear) multiplies and then adds the bias in a second pass over the
// output; under bf16 autocast that add also mixes the bf16 product with the fp32 bias, a casting
// kernel over every output element. ATen's at::linear, which Python's nn.Linear calls, folds the
// bias into the GEMM's epilogue. On the H200 the mixer D=1024 N=8 step spent 2.9 ms per step in
// those adds (docs/benchmarks.md, "GPU"). CPU tensors keep the library's forward, so CPU results
// stay bit for bit what they were. Same parameters and names as torch::nn::Linear.
#pragma once
#include <torch/nn/modules/linear.h>

namespace mixerlab {

class BiasFusedLinearImpl : public torch::nn::LinearImpl {
 public:
  using torch::nn::LinearImpl::LinearImpl;
  at::Tensor forward(const at::Tensor& input);
};
TORCH_MODULE(BiasFusedLinear);

}  // namespace mixerlab
