// The causal token mix op (see causal_token_mix.h): the CPU reference on row blocks of one GEMM in
// a token-major layout, the device dispatch, and the autograd function around both.
#include "kernels/causal_token_mix.h"

#include <algorithm>

#include <ATen/autocast_mode.h>
#include <ATen/core/grad_mode.h>
#include <c10/util/Exception.h>
#include <torch/csrc/autograd/custom_function.h>
#include <torch/version.h>

#ifdef MIXERLAB_WITH_CUDA
#include "kernels/cuda/cuda_ops.h"
#endif

namespace mixerlab::kernels {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// Rows per GEMM block, measured with `mixerlab bench kernels` (docs/kernels.md): 64-row blocks
// were fastest or within 3% of it at L = 128, 512 and 1024 (fwd+bwd 1.1-1.5x faster than one
// dense GEMM on tril(W), which multiplies the zero triangle too).
constexpr int64_t kDefaultBlockRows = 64;

int64_t blockRows(int64_t requested, int64_t length) {
  const int64_t rows = requested > 0 ? requested : kDefaultBlockRows;
  return std::min(rows, length);
}

// [B, L, D] -> [L, B*D] (a copy): every token's features of all batch rows in one row, so the
// token mix of the whole batch is one [L, L] x [L, B*D] product.
at::Tensor tokenMajor(const at::Tensor& t) {
  const int64_t batch = t.size(0), length = t.size(1), width = t.size(2);
  return t.permute({1, 0, 2}).reshape({length, batch * width}).contiguous();
}

at::Tensor batchMajor(const at::Tensor& t, int64_t batch, int64_t width) {
  return t.view({t.size(0), batch, width}).permute({1, 0, 2}).contiguous();
}

bool autocastOn(c10::DeviceType type) {
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
  return at::autocast::is_autocast_enabled(type);
#else
  return type == c10::DeviceType::CPU ? at::autocast::is_cpu_enabled() : at::autocast::is_enabled();
#endif
}

c10::ScalarType autocastDtype(c10::DeviceType type) {
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
  return at::autocast::get_autocast_dtype(type);
#else
  return type == c10::DeviceType::CPU ? at::autocast::get_autocast_cpu_dtype() : at::autocast::get_autocast_gpu_dtype();
#endif
}

at::Tensor tokenMixForwardOnDevice(const at::Tensor& x, const at::Tensor& w, const at::Tensor& bias) {
#ifdef MIXERLAB_WITH_CUDA
  if (x.is_cuda()) return tokenMixForwardCuda(x, w, bias);
#endif
  return causalTokenMixForwardReference(x, w, bias);
}

TokenMixGradients tokenMixBackwardOnDevice(const at::Tensor& grad_y, const at::Tensor& x, const at::Tensor& w,
                                           bool with_bias) {
#ifdef MIXERLAB_WITH_CUDA
  if (x.is_cuda()) return tokenMixBackwardCuda(grad_y, x, w, with_bias);
#endif
  return causalTokenMixBackwardReference(grad_y, x, w, with_bias);
}

class CausalTokenMixFunction : public torch::autograd::Function<CausalTokenMixFunction> {
 public:
  // bias_in: [T], or an empty tensor for "no bias" (LibTorch 1.13 takes no undefined inputs here).
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& x, const at::Tensor& weight,
                            const at::Tensor& bias_in) {
    const int64_t length = x.size(1);
    const bool with_bias = bias_in.numel() > 0;
    const at::Tensor w = weight.narrow(0, 0, length).narrow(1, 0, length);
    ctx->save_for_backward({x, weight});
    ctx->saved_data["with_bias"] = with_bias;
    return tokenMixForwardOnDevice(x, w, with_bias ? bias_in.narrow(0, 0, length) : at::Tensor());
  }

  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    TORCH_CHECK(!at::GradMode::is_enabled(), "causal token mix: double backward is not supported");
    const auto saved = ctx->get_saved_variables();
    const at::Tensor &x = saved[0], &weight = saved[1];
    const bool with_bias = ctx->saved_data["with_bias"].toBool();
    const int64_t length = x.size(1), context = weight.size(0);
    const at::Tensor w = weight.narrow(0, 0, length).narrow(1, 0, length);
    TokenMixGradients g = tokenMixBackwardOnDevice(grad_outputs[0], x, w, with_bias);
    // Gradients of the full [T, T] weight and [T] bias: zero outside the used leading block.
    at::Tensor grad_weight = g.weight, grad_bias = g.bias;
    if (length < context) {
      grad_weight = at::zeros({context, context}, g.weight.options());
      grad_weight.narrow(0, 0, length).narrow(1, 0, length).copy_(g.weight);
      if (with_bias) {
        grad_bias = at::zeros({context}, g.bias.options());
        grad_bias.narrow(0, 0, length).copy_(g.bias);
      }
    }
    return {g.x, grad_weight, with_bias ? grad_bias : at::Tensor()};
  }
};

}  // namespace

at::Tensor causalTokenMixForwardReference(const at::Tensor& x, const at::Tensor& w, const at::Tensor& bias,
                                          int64_t block_rows) {
  const int64_t batch = x.size(0), length = x.size(1), width = x.size(2);
  const at::Tensor w_low = w.tril();  // the diagonal blocks hold upper entries, so zero them once
  const at::Tensor x_l = tokenMajor(x);
  at::Tensor y_l = at::empty({length, batch * width}, x.options());
  const int64_t rows = blockRows(block_rows, length);
  for (int64_t i0 = 0; i0 < length; i0 += rows) {
    const int64_t i1 = std::min(length, i0 + rows);
    // Rows [i0, i1) read tokens j < i1 only: the columns right of the block are the zero triangle.
    at::Tensor out = y_l.narrow(0, i0, i1 - i0);
    at::mm_out(out, w_low.narrow(0, i0, i1 - i0).narrow(1, 0, i1), x_l.narrow(0, 0, i1));
  }
  if (bias.defined()) y_l.add_(bias.unsqueeze(-1));
  return batchMajor(y_l, batch, width);
}

TokenMixGradients causalTokenMixBackwardReference(const at::Tensor& grad_y, const at::Tensor& x, const at::Tensor& w,
                                                  bool with_bias, int64_t block_rows) {
  const int64_t batch = x.size(0), length = x.size(1), width = x.size(2);
  const at::Tensor w_low = w.tril();
  const at::Tensor x_l = tokenMajor(x), dy_l = tokenMajor(grad_y);
  at::Tensor dx_l = at::empty({length, batch * width}, x.options());
  at::Tensor dw = at::zeros({length, length}, w.options());
  const int64_t rows = blockRows(block_rows, length);
  for (int64_t i0 = 0; i0 < length; i0 += rows) {
    const int64_t n = std::min(length, i0 + rows) - i0;
    // dx rows [i0, i0+n): tokens j in the block are read by outputs i >= i0 only.
    at::Tensor dx_out = dx_l.narrow(0, i0, n);
    at::mm_out(dx_out, w_low.narrow(0, i0, length - i0).narrow(1, i0, n).t(), dy_l.narrow(0, i0, length - i0));
    // dW rows [i0, i0+n), columns j < i0+n; the diagonal block's upper part is cleared below.
    at::Tensor dw_out = dw.narrow(0, i0, n).narrow(1, 0, i0 + n);
    at::mm_out(dw_out, dy_l.narrow(0, i0, n), x_l.narrow(0, 0, i0 + n).t());
  }
  dw.tril_();
  TokenMixGradients g;
  g.x = batchMajor(dx_l, batch, width);
  g.weight = dw;
  if (with_bias) g.bias = dy_l.sum(1);
  return g;
}

bool causalTokenMixUnderCudaAutocast() { return autocastOn(c10::DeviceType::CUDA); }

bool causalTokenMixSupports(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias) {
  if (x.dim() != 3 || weight.dim() != 2 || weight.size(0) != weight.size(1) || x.size(1) > weight.size(0)) {
    return false;
  }
  if (!at::isFloatingType(x.scalar_type())) return false;
  if (weight.device() != x.device() || weight.scalar_type() != x.scalar_type()) return false;
  if (bias.defined() && (bias.dim() != 1 || bias.size(0) != weight.size(0) || bias.device() != x.device() ||
                         bias.scalar_type() != x.scalar_type())) {
    return false;
  }
  return x.is_cpu() || x.is_cuda();
}

at::Tensor causalTokenMix(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias) {
  const c10::DeviceType type = x.device().type();
  if (autocastOn(type)) {
    // As autocast runs the product: both factors in its dtype, the fp32 bias added afterwards.
    const c10::ScalarType dtype = autocastDtype(type);
    at::Tensor y =
        CausalTokenMixFunction::apply(x.to(dtype), weight.to(dtype), at::empty({0}, x.options().dtype(dtype)));
    if (bias.defined()) y = y + bias.narrow(0, 0, x.size(1)).unsqueeze(-1);
    return y;
  }
  TORCH_CHECK(causalTokenMixSupports(x, weight, bias), "causalTokenMix: unsupported tensors x ", x.sizes(), " ",
              x.scalar_type(), ", weight ", weight.sizes(), " ", weight.scalar_type());
  return CausalTokenMixFunction::apply(x, weight, bias.defined() ? bias : at::empty({0}, x.options()));
}

}  // namespace mixerlab::kernels
