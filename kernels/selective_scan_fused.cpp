// The fused CPU selective scan (see selective_scan_fused.h): plain loops over time per
// (batch, channel), a torch::autograd::Function whose backward recomputes the states and walks
// time backwards. Written for LibTorch 1.13 and 2.x alike (only long-stable APIs).
#include "kernels/selective_scan_fused.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <ATen/Dispatch.h>
#include <ATen/Parallel.h>
#include <ATen/core/grad_mode.h>
#include <c10/util/Exception.h>
#include <torch/csrc/autograd/custom_function.h>

namespace mixerlab::kernels {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// Raw views of the (contiguous) inputs. u, delta, y: [B, L, E]; A: [E, N]; B, C: [B, L, N];
// D: [E] or null.
template <typename scalar_t>
struct ScanData {
  const scalar_t *u, *delta, *A, *B, *C, *D;
  int64_t batch, length, channels, state;
};

// Work items: one (batch, channel) pair each, item = b * E + e. Grain: about 16k multiply-adds
// per task, so short sequences do not drown in scheduling.
int64_t grainItems(int64_t length, int64_t state) { return std::max<int64_t>(1, 16384 / std::max<int64_t>(1, length * state)); }

template <typename scalar_t>
void forwardKernel(const ScanData<scalar_t>& d, scalar_t* y) {
  const int64_t L = d.length, E = d.channels, N = d.state;
  at::parallel_for(0, d.batch * E, grainItems(L, N), [&](int64_t begin, int64_t end) {
    std::vector<scalar_t> h(static_cast<size_t>(N));
    for (int64_t item = begin; item < end; ++item) {
      const int64_t b = item / E, e = item % E;
      const scalar_t* a_row = d.A + e * N;
      const scalar_t d_skip = d.D ? d.D[e] : scalar_t(0);
      std::fill(h.begin(), h.end(), scalar_t(0));
      for (int64_t t = 0; t < L; ++t) {
        const int64_t bte = (b * L + t) * E + e;
        const scalar_t dt = d.delta[bte], u = d.u[bte], dt_u = dt * u;
        const scalar_t* b_row = d.B + (b * L + t) * N;
        const scalar_t* c_row = d.C + (b * L + t) * N;
        scalar_t acc = 0;
        for (int64_t n = 0; n < N; ++n) {
          h[n] = std::exp(dt * a_row[n]) * h[n] + dt_u * b_row[n];
          acc += c_row[n] * h[n];
        }
        y[bte] = acc + d_skip * u;
      }
    }
  });
}

// Gradients of sum(y * grad_y). The items are cut into `slices` contiguous runs, one per task;
// every slice accumulates the gradients that several items share (A, D across batches; B, C
// across channels) in its own row of the *_parts buffers, summed afterwards, so no two threads
// ever write the same element.
template <typename scalar_t>
void backwardKernel(const ScanData<scalar_t>& d, const scalar_t* grad_y, int64_t slices, scalar_t* grad_u,
                    scalar_t* grad_delta, scalar_t* grad_A_parts, scalar_t* grad_B_parts, scalar_t* grad_C_parts,
                    scalar_t* grad_D_parts) {
  const int64_t L = d.length, E = d.channels, N = d.state;
  const int64_t items = d.batch * E;
  at::parallel_for(0, slices, 1, [&](int64_t slice_begin, int64_t slice_end) {
    // Per-task scratch: h_t and exp(dt_t*A) for every t of one item, and the carried state gradient.
    std::vector<scalar_t> h(static_cast<size_t>(L * N)), decay(static_cast<size_t>(L * N)), grad_h(static_cast<size_t>(N));
    for (int64_t slice = slice_begin; slice < slice_end; ++slice) {
      scalar_t* gA_part = grad_A_parts + slice * E * N;
      scalar_t* gB_part = grad_B_parts + slice * d.batch * L * N;
      scalar_t* gC_part = grad_C_parts + slice * d.batch * L * N;
      scalar_t* gD_part = grad_D_parts + slice * E;
      for (int64_t item = items * slice / slices; item < items * (slice + 1) / slices; ++item) {
        const int64_t b = item / E, e = item % E;
        const scalar_t* a_row = d.A + e * N;
        const scalar_t d_skip = d.D ? d.D[e] : scalar_t(0);
        // Recompute the forward states of this (b, e).
        for (int64_t t = 0; t < L; ++t) {
          const int64_t bte = (b * L + t) * E + e;
          const scalar_t dt = d.delta[bte], dt_u = dt * d.u[bte];
          const scalar_t* b_row = d.B + (b * L + t) * N;
          scalar_t* h_t = h.data() + t * N;
          scalar_t* decay_t = decay.data() + t * N;
          for (int64_t n = 0; n < N; ++n) {
            decay_t[n] = std::exp(dt * a_row[n]);
            const scalar_t h_prev = t > 0 ? h[(t - 1) * N + n] : scalar_t(0);
            h_t[n] = decay_t[n] * h_prev + dt_u * b_row[n];
          }
        }
        // Reverse time. grad_h[n] enters step t holding dL/dh_t through h_{t+1} (decay_{t+1} *
        // dL/dh_{t+1}), zero at the last step.
        std::fill(grad_h.begin(), grad_h.end(), scalar_t(0));
        for (int64_t t = L - 1; t >= 0; --t) {
          const int64_t bte = (b * L + t) * E + e;
          const int64_t btn = (b * L + t) * N;
          const scalar_t dt = d.delta[bte], u = d.u[bte], gy = grad_y[bte];
          const scalar_t* b_row = d.B + btn;
          const scalar_t* c_row = d.C + btn;
          const scalar_t* h_t = h.data() + t * N;
          const scalar_t* decay_t = decay.data() + t * N;
          scalar_t g_u = gy * d_skip, g_dt = 0;
          gD_part[e] += gy * u;
          for (int64_t n = 0; n < N; ++n) {
            const scalar_t g = grad_h[n] + gy * c_row[n];  // dL/dh_t
            gC_part[btn + n] += gy * h_t[n];
            const scalar_t h_prev = t > 0 ? h[(t - 1) * N + n] : scalar_t(0);
            // h_t = decay_t * h_prev + dt * B * u, decay_t = exp(dt * A).
            const scalar_t g_log_decay = g * h_prev * decay_t[n];  // dL/d(dt * A)
            g_dt += g_log_decay * a_row[n] + g * b_row[n] * u;
            gA_part[e * N + n] += g_log_decay * dt;
            gB_part[btn + n] += g * dt * u;
            g_u += g * dt * b_row[n];
            grad_h[n] = g * decay_t[n];
          }
          grad_u[bte] = g_u;
          grad_delta[bte] = g_dt;
        }
      }
    }
  });
}

template <typename scalar_t>
ScanData<scalar_t> scanData(const at::Tensor& u, const at::Tensor& delta, const at::Tensor& A, const at::Tensor& B,
                            const at::Tensor& C, const at::Tensor& D) {
  return {u.data_ptr<scalar_t>(),
          delta.data_ptr<scalar_t>(),
          A.data_ptr<scalar_t>(),
          B.data_ptr<scalar_t>(),
          C.data_ptr<scalar_t>(),
          D.defined() ? D.data_ptr<scalar_t>() : nullptr,
          u.size(0),
          u.size(1),
          u.size(2),
          A.size(1)};
}

class FusedScanFunction : public torch::autograd::Function<FusedScanFunction> {
 public:
  // D_in: [E], or an empty tensor for "no D" (LibTorch 1.13 cannot take an undefined tensor as an
  // autograd-function input).
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& u_in, const at::Tensor& delta_in,
                            const at::Tensor& A_in, const at::Tensor& B_in, const at::Tensor& C_in,
                            const at::Tensor& D_in) {
    const at::Tensor u = u_in.contiguous(), delta = delta_in.contiguous(), A = A_in.contiguous();
    const at::Tensor B = B_in.contiguous(), C = C_in.contiguous();
    const bool has_D = D_in.numel() > 0;
    const at::Tensor D = has_D ? D_in.contiguous() : at::Tensor();
    // Only the inputs are kept: the backward recomputes the states.
    ctx->save_for_backward({u, delta, A, B, C, has_D ? D : D_in});
    ctx->saved_data["has_D"] = has_D;
    at::Tensor y = at::empty(u.sizes(), u.options());
    AT_DISPATCH_FLOATING_TYPES(u.scalar_type(), "fusedSelectiveScan", [&] {
      forwardKernel<scalar_t>(scanData<scalar_t>(u, delta, A, B, C, D), y.data_ptr<scalar_t>());
    });
    return y;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    TORCH_CHECK(!at::GradMode::is_enabled(),
                "fused selective scan: double backward is not supported (use scan = \"parallel\")");
    const auto saved = ctx->get_saved_variables();
    const at::Tensor &u = saved[0], &delta = saved[1], &A = saved[2], &B = saved[3], &C = saved[4];
    const at::Tensor D = ctx->saved_data["has_D"].toBool() ? saved[5] : at::Tensor();
    const at::Tensor grad_y = grad_outputs[0].contiguous();
    const int64_t batch = u.size(0), length = u.size(1), channels = u.size(2), state = A.size(1);
    const int64_t slices = std::max<int64_t>(1, std::min<int64_t>(at::get_num_threads(), batch * channels));
    at::Tensor grad_u = at::empty_like(u), grad_delta = at::empty_like(delta);
    at::Tensor grad_A_parts = at::zeros({slices, channels, state}, A.options());
    at::Tensor grad_B_parts = at::zeros({slices, batch, length, state}, B.options());
    at::Tensor grad_C_parts = at::zeros({slices, batch, length, state}, C.options());
    at::Tensor grad_D_parts = at::zeros({slices, channels}, u.options());
    AT_DISPATCH_FLOATING_TYPES(u.scalar_type(), "fusedSelectiveScanBackward", [&] {
      backwardKernel<scalar_t>(scanData<scalar_t>(u, delta, A, B, C, D), grad_y.data_ptr<scalar_t>(), slices,
                               grad_u.data_ptr<scalar_t>(), grad_delta.data_ptr<scalar_t>(),
                               grad_A_parts.data_ptr<scalar_t>(), grad_B_parts.data_ptr<scalar_t>(),
                               grad_C_parts.data_ptr<scalar_t>(), grad_D_parts.data_ptr<scalar_t>());
    });
    return {grad_u,
            grad_delta,
            grad_A_parts.sum(0),
            grad_B_parts.sum(0),
            grad_C_parts.sum(0),
            D.defined() ? grad_D_parts.sum(0) : at::Tensor()};
  }
};

}  // namespace

bool fusedScanSupports(const at::Tensor& u, const at::Tensor& delta, const at::Tensor& A, const at::Tensor& B,
                       const at::Tensor& C, const at::Tensor& D) {
  const auto dtype = u.scalar_type();
  if (!u.device().is_cpu() || (dtype != at::kFloat && dtype != at::kDouble)) return false;
  for (const at::Tensor* t : {&delta, &A, &B, &C, &D}) {
    if (t->defined() && (!t->device().is_cpu() || t->scalar_type() != dtype)) return false;
  }
  return true;
}

at::Tensor fusedSelectiveScan(const at::Tensor& u, const at::Tensor& delta, const at::Tensor& A, const at::Tensor& B,
                              const at::Tensor& C, const at::Tensor& D) {
  TORCH_CHECK(fusedScanSupports(u, delta, A, B, C, D),
              "fusedSelectiveScan: needs fp32 or fp64 CPU tensors of one dtype");
  return FusedScanFunction::apply(u, delta, A, B, C, D.defined() ? D : at::empty({0}, u.options()));
}

}  // namespace mixerlab::kernels
