// Products of a decoder's single new row. With one row, BLAS matrix-matrix products (gemm) pack the
// whole weight matrix on every call, which costs more than the product itself when decoding token
// by token; these helpers use matrix-vector products (gemv) for one row and fall back to the
// module's own forward for several (prefill). Used by the families' one-token steps and the decoders.
#pragma once
#include <ATen/core/Tensor.h>
#include <torch/nn/modules/linear.h>

namespace mixerlab {

// y = W x + b for one row x ([in]): [out].
at::Tensor rowLinear(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias);

// x W^T + b for x [..., in] and W [out, in] (b may be undefined): through gemv when x holds one row
// (the result keeps x's leading shape), else as a matrix product.
at::Tensor decodeLinear(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias);

// linear(x) for x [..., in]: decodeLinear with the module's weight and bias.
at::Tensor decodeLinear(torch::nn::LinearImpl& linear, const at::Tensor& x);

}  // namespace mixerlab
