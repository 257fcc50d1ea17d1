// Fused residual add + LayerNorm, one custom autograd op with two outputs:
//   s = x + residual,   out = (s - mean(s)) * rstd(s) * weight + bias   (over the last dim, D)
// where rstd = 1 / sqrt(var(s) + eps) with the biased variance, as torch.nn.LayerNorm. The sum s is
// returned too, since a pre-norm block carries it on as the next residual. Backward, per row with
// xhat = (s - mean) * rstd and g = grad_out * weight:
//   ds = grad_s + rstd * (g - mean(g) - xhat * mean(g * xhat)),   dx = dresidual = ds,
//   dweight = sum_rows grad_out * xhat,   dbias = sum_rows grad_out.
// One pass over each row instead of an add, a LayerNorm and their two backward passes. CPU tensors
// (fp32 / fp64) take the loops of residual_layer_norm.cpp, CUDA tensors the kernels of
// kernels/cuda/residual_layer_norm.cu when built with MIXERLAB_WITH_CUDA; anything else takes the
// unfused ops. Not twice differentiable.
//
// Mixed precision: on a GPU, x (and so the sum, the weight and the bias) may be fp32 while the
// residual is half or bfloat16, as in a pre-norm block under autocast, where the residual stream is
// fp32 and each sublayer's product comes out in half precision. Then `out` comes out in the
// residual's dtype, ready for the next product without a cast, and the residual's gradient too. The
// unfused reference does the same with ATen ops: layer_norm(x + residual) cast to the residual's type.
#pragma once

#include <utility>

#include <ATen/ATen.h>

namespace mixerlab::kernels {

// {out, sum}. x, residual: [..., D] of one shape; weight, bias: [D] in x's dtype. out has the
// residual's dtype, sum x's.
std::pair<at::Tensor, at::Tensor> residualLayerNorm(const at::Tensor& x, const at::Tensor& residual,
                                                    const at::Tensor& weight, const at::Tensor& bias, double eps);

// The same by unfused tensor ops under autograd (at::layer_norm(x + residual)), the reference.
std::pair<at::Tensor, at::Tensor> residualLayerNormUnfused(const at::Tensor& x, const at::Tensor& residual,
                                                           const at::Tensor& weight, const at::Tensor& bias,
                                                           double eps);

// True when the fused op has a kernel for these tensors (else residualLayerNorm runs the unfused ops).
bool residualLayerNormSupports(const at::Tensor& x, const at::Tensor& residual, const at::Tensor& weight,
                               const at::Tensor& bias);

// The CPU kernels without autograd (contiguous fp32 / fp64, rows = numel / D), for the tests and
// the GPU comparison. Forward gives out, sum, mean and rstd ([rows], in the input dtype).
struct ResidualLayerNormForward {
  at::Tensor out, sum, mean, rstd;
};
ResidualLayerNormForward residualLayerNormForwardCpu(const at::Tensor& x, const at::Tensor& residual,
                                                     const at::Tensor& weight, const at::Tensor& bias, double eps);

struct ResidualLayerNormGradients {
  at::Tensor x, weight, bias;  // x's gradient is also the residual's...
  at::Tensor residual;         // ...except in mixed precision: then this holds it in the residual's dtype
};
// grad_sum may be undefined (the sum not used downstream).
ResidualLayerNormGradients residualLayerNormBackwardCpu(const at::Tensor& grad_out, const at::Tensor& grad_sum,
                                                        const at::Tensor& sum, const at::Tensor& mean,
                                                        const at::Tensor& rstd, const at::Tensor& weight);

}  // namespace mixerlab::kernels
