// Torch-facing wrappers of the CUDA kernels (kernels/cuda/launch.h), compiled only with
// MIXERLAB_WITH_CUDA: they check devices, dtypes and shapes, make inputs contiguous, allocate the
// outputs and workspaces and launch on the current CUDA stream. The device-neutral ops
// (causal_token_mix.h, residual_layer_norm.h, selective_scan.h) call them for CUDA tensors.
#pragma once

#include <ATen/ATen.h>

#include "kernels/causal_token_mix.h"
#include "kernels/residual_layer_norm.h"

namespace mixerlab::kernels {

// w: [L, L] view (any row stride), x: [B, L, D], bias: [L] or undefined; all one dtype on one GPU.
at::Tensor tokenMixForwardCuda(const at::Tensor& x, const at::Tensor& w, const at::Tensor& bias);
TokenMixGradients tokenMixBackwardCuda(const at::Tensor& grad_y, const at::Tensor& x, const at::Tensor& w,
                                       bool with_bias);

// mean and rstd come back in float (double for double inputs), whatever the input dtype.
ResidualLayerNormForward residualLayerNormForwardCuda(const at::Tensor& x, const at::Tensor& residual,
                                                      const at::Tensor& weight, const at::Tensor& bias, double eps);
ResidualLayerNormGradients residualLayerNormBackwardCuda(const at::Tensor& grad_out, const at::Tensor& grad_sum,
                                                         const at::Tensor& sum, const at::Tensor& mean,
                                                         const at::Tensor& rstd, const at::Tensor& weight);

// True for CUDA tensors of one dtype (fp32, fp64, fp16, bf16) on one device with N <= 64.
bool cudaScanSupports(const at::Tensor& u, const at::Tensor& delta, const at::Tensor& A, const at::Tensor& B,
                      const at::Tensor& C, const at::Tensor& D);
// The selective scan as an autograd function over the CUDA kernels (recompute in backward).
at::Tensor cudaSelectiveScan(const at::Tensor& u, const at::Tensor& delta, const at::Tensor& A, const at::Tensor& B,
                             const at::Tensor& C, const at::Tensor& D);

}  // namespace mixerlab::kernels
