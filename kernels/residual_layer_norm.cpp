// Fused residual add + LayerNorm (see residual_layer_norm.h): row loops for the CPU (double
// accumulation, split by at::parallel_for, which runs them on one thread in this library: it is
// not compiled with OpenMP, see docs/kernels.md), the device dispatch and the autograd function.
#include "kernels/residual_layer_norm.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <ATen/Dispatch.h>
#include <ATen/Parallel.h>
#include <ATen/core/grad_mode.h>
#include <c10/util/Exception.h>
#include <torch/csrc/autograd/custom_function.h>

#ifdef MIXERLAB_WITH_CUDA
#include "kernels/cuda/cuda_ops.h"
#endif

namespace mixerlab::kernels {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

template <typename scalar_t>
void forwardRows(const scalar_t* x, const scalar_t* r, const scalar_t* w, const scalar_t* b, int64_t rows,
                 int64_t width, double eps, scalar_t* out, scalar_t* sum, scalar_t* mean, scalar_t* rstd) {
  at::parallel_for(0, rows, std::max<int64_t>(1, 4096 / std::max<int64_t>(1, width)), [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      const int64_t o = row * width;
      double total = 0;
      for (int64_t d = 0; d < width; ++d) {
        sum[o + d] = x[o + d] + r[o + d];
        total += sum[o + d];
      }
      const double mu = total / width;
      double squares = 0;  // two passes: no cancellation in the variance
      for (int64_t d = 0; d < width; ++d) {
        const double c = sum[o + d] - mu;
        squares += c * c;
      }
      const double inv = 1.0 / std::sqrt(squares / width + eps);
      for (int64_t d = 0; d < width; ++d) out[o + d] = static_cast<scalar_t>((sum[o + d] - mu) * inv * w[d] + b[d]);
      mean[row] = static_cast<scalar_t>(mu);
      rstd[row] = static_cast<scalar_t>(inv);
    }
  });
}

// Rows are cut into `slices` runs, each summing its dweight / dbias in its own row of the parts
// buffers, so no two threads write one element.
template <typename scalar_t>
void backwardRows(const scalar_t* g_out, const scalar_t* g_sum, const scalar_t* sum, const scalar_t* mean,
                  const scalar_t* rstd, const scalar_t* w, int64_t rows, int64_t width, int64_t slices, scalar_t* g_x,
                  double* g_w_parts, double* g_b_parts) {
  at::parallel_for(0, slices, 1, [&](int64_t slice_begin, int64_t slice_end) {
    std::vector<double> xhat(width);
    for (int64_t slice = slice_begin; slice < slice_end; ++slice) {
      double* gw = g_w_parts + slice * width;
      double* gb = g_b_parts + slice * width;
      for (int64_t row = rows * slice / slices; row < rows * (slice + 1) / slices; ++row) {
        const int64_t o = row * width;
        const double mu = mean[row], inv = rstd[row];
        double mean_g = 0, mean_g_xhat = 0;
        for (int64_t d = 0; d < width; ++d) {
          xhat[d] = (sum[o + d] - mu) * inv;
          const double g = static_cast<double>(g_out[o + d]) * w[d];
          mean_g += g;
          mean_g_xhat += g * xhat[d];
          gw[d] += static_cast<double>(g_out[o + d]) * xhat[d];
          gb[d] += g_out[o + d];
        }
        mean_g /= width;
        mean_g_xhat /= width;
        for (int64_t d = 0; d < width; ++d) {
          const double g = static_cast<double>(g_out[o + d]) * w[d];
          const double carried = g_sum ? static_cast<double>(g_sum[o + d]) : 0.0;
          g_x[o + d] = static_cast<scalar_t>(carried + inv * (g - mean_g - xhat[d] * mean_g_xhat));
        }
      }
    }
  });
}

ResidualLayerNormForward residualLayerNormForwardOnDevice(const at::Tensor& x, const at::Tensor& r, const at::Tensor& w,
                                                          const at::Tensor& b, double eps) {
#ifdef MIXERLAB_WITH_CUDA
  if (x.is_cuda()) return residualLayerNormForwardCuda(x, r, w, b, eps);
#endif
  return residualLayerNormForwardCpu(x, r, w, b, eps);
}

ResidualLayerNormGradients residualLayerNormBackwardOnDevice(const at::Tensor& g_out, const at::Tensor& g_sum,
                                                             const at::Tensor& sum, const at::Tensor& mean,
                                                             const at::Tensor& rstd, const at::Tensor& w) {
#ifdef MIXERLAB_WITH_CUDA
  if (sum.is_cuda()) return residualLayerNormBackwardCuda(g_out, g_sum, sum, mean, rstd, w);
#endif
  return residualLayerNormBackwardCpu(g_out, g_sum, sum, mean, rstd, w);
}

class ResidualLayerNormFunction : public torch::autograd::Function<ResidualLayerNormFunction> {
 public:
  static variable_list forward(AutogradContext* ctx, const at::Tensor& x, const at::Tensor& residual,
                               const at::Tensor& weight, const at::Tensor& bias, double eps) {
    ResidualLayerNormForward f = residualLayerNormForwardOnDevice(x, residual, weight, bias, eps);
    ctx->save_for_backward({f.sum, f.mean, f.rstd, weight});
    ctx->saved_data["out_dtype"] = static_cast<int64_t>(f.out.scalar_type());
    return {f.out, f.sum};
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    TORCH_CHECK(!at::GradMode::is_enabled(), "residual LayerNorm: double backward is not supported");
    const auto saved = ctx->get_saved_variables();
    const auto out_dtype = static_cast<at::ScalarType>(ctx->saved_data["out_dtype"].toInt());
    const at::Tensor g_out =
        grads[0].defined() ? grads[0] : at::zeros_like(saved[0], saved[0].options().dtype(out_dtype));
    ResidualLayerNormGradients g =
        residualLayerNormBackwardOnDevice(g_out, grads[1], saved[0], saved[1], saved[2], saved[3]);
    return {g.x, g.residual.defined() ? g.residual : g.x, g.weight, g.bias, at::Tensor()};
  }
};

}  // namespace

ResidualLayerNormForward residualLayerNormForwardCpu(const at::Tensor& x_in, const at::Tensor& r_in,
                                                     const at::Tensor& w_in, const at::Tensor& b_in, double eps) {
  const at::Tensor x = x_in.contiguous(), r = r_in.contiguous(), w = w_in.contiguous(), b = b_in.contiguous();
  const int64_t width = x.size(-1), rows = width > 0 ? x.numel() / width : 0;
  ResidualLayerNormForward f;
  f.out = at::empty_like(x);
  f.sum = at::empty_like(x);
  f.mean = at::empty({rows}, x.options());
  f.rstd = at::empty({rows}, x.options());
  AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "residualLayerNormForwardCpu", [&] {
    forwardRows<scalar_t>(x.data_ptr<scalar_t>(), r.data_ptr<scalar_t>(), w.data_ptr<scalar_t>(),
                          b.data_ptr<scalar_t>(), rows, width, eps, f.out.data_ptr<scalar_t>(),
                          f.sum.data_ptr<scalar_t>(), f.mean.data_ptr<scalar_t>(), f.rstd.data_ptr<scalar_t>());
  });
  return f;
}

ResidualLayerNormGradients residualLayerNormBackwardCpu(const at::Tensor& grad_out, const at::Tensor& grad_sum,
                                                        const at::Tensor& sum, const at::Tensor& mean,
                                                        const at::Tensor& rstd, const at::Tensor& weight) {
  const at::Tensor g_out = grad_out.contiguous(), w = weight.contiguous();
  const at::Tensor g_sum = grad_sum.defined() ? grad_sum.contiguous() : at::Tensor();
  const int64_t width = sum.size(-1), rows = width > 0 ? sum.numel() / width : 0;
  const int64_t slices = std::max<int64_t>(1, std::min<int64_t>(at::get_num_threads(), rows));
  const auto acc = sum.options().dtype(at::kDouble);
  at::Tensor g_w_parts = at::zeros({slices, width}, acc), g_b_parts = at::zeros({slices, width}, acc);
  ResidualLayerNormGradients g;
  g.x = at::empty_like(sum);
  AT_DISPATCH_FLOATING_TYPES(sum.scalar_type(), "residualLayerNormBackwardCpu", [&] {
    backwardRows<scalar_t>(g_out.data_ptr<scalar_t>(), g_sum.defined() ? g_sum.data_ptr<scalar_t>() : nullptr,
                           sum.data_ptr<scalar_t>(), mean.data_ptr<scalar_t>(), rstd.data_ptr<scalar_t>(),
                           w.data_ptr<scalar_t>(), rows, width, slices, g.x.data_ptr<scalar_t>(),
                           g_w_parts.data_ptr<double>(), g_b_parts.data_ptr<double>());
  });
  g.weight = g_w_parts.sum(0).to(weight.scalar_type());
  g.bias = g_b_parts.sum(0).to(weight.scalar_type());
  return g;
}

bool residualLayerNormSupports(const at::Tensor& x, const at::Tensor& residual, const at::Tensor& weight,
                               const at::Tensor& bias) {
  if (!weight.defined() || !bias.defined() || x.dim() < 1 || x.sizes() != residual.sizes()) return false;
  const int64_t width = x.size(-1);
  if (weight.dim() != 1 || bias.dim() != 1 || weight.size(0) != width || bias.size(0) != width || width == 0) {
    return false;
  }
  const auto dtype = x.scalar_type();
  for (const at::Tensor* t : {&residual, &weight, &bias}) {
    if (t->device() != x.device()) return false;
  }
  if (weight.scalar_type() != dtype || bias.scalar_type() != dtype) return false;
  const auto residual_dtype = residual.scalar_type();
  if (x.is_cpu()) return residual_dtype == dtype && (dtype == at::kFloat || dtype == at::kDouble);
#ifdef MIXERLAB_WITH_CUDA
  if (x.is_cuda()) {
    if (residual_dtype != dtype) {
      return dtype == at::kFloat && (residual_dtype == at::kHalf || residual_dtype == at::kBFloat16);
    }
    return dtype == at::kFloat || dtype == at::kDouble || dtype == at::kHalf || dtype == at::kBFloat16;
  }
#endif
  return false;
}

std::pair<at::Tensor, at::Tensor> residualLayerNormUnfused(const at::Tensor& x, const at::Tensor& residual,
                                                           const at::Tensor& weight, const at::Tensor& bias,
                                                           double eps) {
  at::Tensor sum = x + residual;
  at::Tensor out = at::layer_norm(sum, {sum.size(-1)}, weight, bias, eps);
  if (residual.scalar_type() != x.scalar_type()) out = out.to(residual.scalar_type());
  return {out, sum};
}

std::pair<at::Tensor, at::Tensor> residualLayerNorm(const at::Tensor& x, const at::Tensor& residual,
                                                    const at::Tensor& weight, const at::Tensor& bias, double eps) {
  if (!residualLayerNormSupports(x, residual, weight, bias)) {
    return residualLayerNormUnfused(x, residual, weight, bias, eps);
  }
  const variable_list outs = ResidualLayerNormFunction::apply(x, residual, weight, bias, eps);
  return {outs[0], outs[1]};
}

}  // namespace mixerlab::kernels
