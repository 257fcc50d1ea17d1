// The fused CPU selective scan (see selective_scan_fused.h): plain loops over time per (batch,
// block of 8 channels), the 8 channels in SIMD lanes, in a torch::autograd::Function whose backward
// recomputes the states and walks time backwards. Written for LibTorch 1.13 and 2.x alike (only
// long-stable APIs). Built with -fno-trapping-math (kernels/CMakeLists.txt) so the lanes vectorise.
#include "kernels/selective_scan_fused.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include <ATen/Dispatch.h>
#include <ATen/Parallel.h>
#include <ATen/core/grad_mode.h>
#include <c10/util/Exception.h>
#include <torch/csrc/autograd/custom_function.h>

#include "kernels/fast_exp.h"

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

// Channels are processed kLanes at a time: every inner loop runs over kLanes neighbouring channels
// of one (batch, time) position, independent lanes the compiler turns into SIMD instructions
// (u, delta and y rows are contiguous in the channel). Missing channels of the last block are
// padded with zeros, which contribute nothing to any gradient.
constexpr int64_t kLanes = 8;

// exp for the decays: fastExp (kernels/fast_exp.h) in fp32, std::exp in fp64 (tests).
inline float decayExp(float x) { return fastExp(x); }
inline double decayExp(double x) { return std::exp(x); }

// Sum of kLanes values in a fixed order.
template <typename scalar_t>
inline scalar_t laneSum(const scalar_t* v) {
  scalar_t s = 0;
  for (int64_t l = 0; l < kLanes; ++l) s += v[l];
  return s;
}

// One block of channels [e0, e0 + lanes) of batch row b, its inputs gathered per lane.
template <typename scalar_t>
struct ChannelBlock {
  int64_t b, e0, lanes;
  std::vector<scalar_t> a;  // [N][kLanes]: A transposed, zero for missing lanes
  scalar_t d_skip[kLanes];

  ChannelBlock(const ScanData<scalar_t>& d, int64_t item) : a(static_cast<size_t>(d.state * kLanes)) {
    const int64_t blocks = (d.channels + kLanes - 1) / kLanes;
    b = item / blocks;
    e0 = (item % blocks) * kLanes;
    lanes = std::min(kLanes, d.channels - e0);
    for (int64_t l = 0; l < kLanes; ++l) {
      d_skip[l] = l < lanes && d.D ? d.D[e0 + l] : scalar_t(0);
      for (int64_t n = 0; n < d.state; ++n) a[n * kLanes + l] = l < lanes ? d.A[(e0 + l) * d.state + n] : scalar_t(0);
    }
  }
  // row[l] = src[b, t, e0 + l] for a [B, L, E] tensor, 0 for missing lanes.
  void gather(const ScanData<scalar_t>& d, const scalar_t* src, int64_t t, scalar_t* row) const {
    const scalar_t* p = src + (b * d.length + t) * d.channels + e0;
    for (int64_t l = 0; l < kLanes; ++l) row[l] = l < lanes ? p[l] : scalar_t(0);
  }
};

int64_t channelBlocks(int64_t channels) { return (channels + kLanes - 1) / kLanes; }

// y: [B, L, E]; final_state, when not null: h after the last position, [B, E, N].
template <typename scalar_t>
void forwardKernel(const ScanData<scalar_t>& d, scalar_t* y, scalar_t* final_state) {
  const int64_t L = d.length, E = d.channels, N = d.state;
  const int64_t items = d.batch * channelBlocks(E);
  const int64_t grain = std::max<int64_t>(1, 16384 / std::max<int64_t>(1, L * N * kLanes));
  at::parallel_for(0, items, grain, [&](int64_t begin, int64_t end) {
    std::vector<scalar_t> h(static_cast<size_t>(N * kLanes));
    for (int64_t item = begin; item < end; ++item) {
      const ChannelBlock<scalar_t> blk(d, item);
      std::fill(h.begin(), h.end(), scalar_t(0));
      for (int64_t t = 0; t < L; ++t) {
        scalar_t dt[kLanes], u[kLanes], dt_u[kLanes], acc[kLanes];
        blk.gather(d, d.delta, t, dt);
        blk.gather(d, d.u, t, u);
        for (int64_t l = 0; l < kLanes; ++l) {
          dt_u[l] = dt[l] * u[l];
          acc[l] = blk.d_skip[l] * u[l];
        }
        const scalar_t* b_row = d.B + (blk.b * L + t) * N;
        const scalar_t* c_row = d.C + (blk.b * L + t) * N;
        for (int64_t n = 0; n < N; ++n) {
          const scalar_t bn = b_row[n], cn = c_row[n];
          const scalar_t* a_n = blk.a.data() + n * kLanes;
          scalar_t* h_n = h.data() + n * kLanes;
          for (int64_t l = 0; l < kLanes; ++l) {
            h_n[l] = decayExp(dt[l] * a_n[l]) * h_n[l] + dt_u[l] * bn;
            acc[l] += cn * h_n[l];
          }
        }
        scalar_t* y_row = y + (blk.b * L + t) * E + blk.e0;
        for (int64_t l = 0; l < blk.lanes; ++l) y_row[l] = acc[l];
      }
      if (final_state == nullptr) continue;
      for (int64_t l = 0; l < blk.lanes; ++l) {
        scalar_t* out = final_state + (blk.b * E + blk.e0 + l) * N;
        for (int64_t n = 0; n < N; ++n) out[n] = h[n * kLanes + l];
      }
    }
  });
}

// Gradients of sum(y * grad_y). The channel blocks are cut into `slices` contiguous runs, one per
// task; every slice accumulates the gradients that several blocks share (A, D across batches; B, C
// across channels) in its own row of the *_parts buffers, summed afterwards, so no two threads
// ever write the same element.
template <typename scalar_t>
void backwardKernel(const ScanData<scalar_t>& d, const scalar_t* grad_y, int64_t slices, scalar_t* grad_u,
                    scalar_t* grad_delta, scalar_t* grad_A_parts, scalar_t* grad_B_parts, scalar_t* grad_C_parts,
                    scalar_t* grad_D_parts) {
  const int64_t L = d.length, E = d.channels, N = d.state;
  const int64_t items = d.batch * channelBlocks(E);
  const size_t row = static_cast<size_t>(N * kLanes);
  at::parallel_for(0, slices, 1, [&](int64_t slice_begin, int64_t slice_end) {
    // Per-task scratch: h_t and exp(dt_t*A) of every t for one block ([L][N][kLanes] each), the
    // carried state gradient, the block's A gradient, and h_{-1} = 0.
    std::vector<scalar_t> h(L * row), decay(L * row), grad_h(row), grad_a(row), zeros(row, scalar_t(0));
    for (int64_t slice = slice_begin; slice < slice_end; ++slice) {
      scalar_t* gA_part = grad_A_parts + slice * E * N;
      scalar_t* gB_part = grad_B_parts + slice * d.batch * L * N;
      scalar_t* gC_part = grad_C_parts + slice * d.batch * L * N;
      scalar_t* gD_part = grad_D_parts + slice * E;
      for (int64_t item = items * slice / slices; item < items * (slice + 1) / slices; ++item) {
        const ChannelBlock<scalar_t> blk(d, item);
        // Recompute the forward states of this block.
        for (int64_t t = 0; t < L; ++t) {
          scalar_t dt[kLanes], u[kLanes], dt_u[kLanes];
          blk.gather(d, d.delta, t, dt);
          blk.gather(d, d.u, t, u);
          for (int64_t l = 0; l < kLanes; ++l) dt_u[l] = dt[l] * u[l];
          const scalar_t* b_row = d.B + (blk.b * L + t) * N;
          const scalar_t* h_before = t > 0 ? h.data() + (t - 1) * row : zeros.data();
          for (int64_t n = 0; n < N; ++n) {
            const scalar_t bn = b_row[n];
            const scalar_t* a_n = blk.a.data() + n * kLanes;
            const scalar_t* h_prev = h_before + n * kLanes;
            scalar_t* h_n = h.data() + t * row + n * kLanes;
            scalar_t* decay_n = decay.data() + t * row + n * kLanes;
            for (int64_t l = 0; l < kLanes; ++l) {
              decay_n[l] = decayExp(dt[l] * a_n[l]);
              h_n[l] = decay_n[l] * h_prev[l] + dt_u[l] * bn;
            }
          }
        }
        // Reverse time. grad_h enters step t holding dL/dh_t through h_{t+1} (decay_{t+1} *
        // dL/dh_{t+1}), zero at the last step.
        std::fill(grad_h.begin(), grad_h.end(), scalar_t(0));
        std::fill(grad_a.begin(), grad_a.end(), scalar_t(0));
        scalar_t grad_d[kLanes] = {};
        for (int64_t t = L - 1; t >= 0; --t) {
          scalar_t dt[kLanes], u[kLanes], gy[kLanes], dt_u[kLanes], g_u[kLanes], g_dt[kLanes];
          blk.gather(d, d.delta, t, dt);
          blk.gather(d, d.u, t, u);
          blk.gather(d, grad_y, t, gy);  // 0 in missing lanes, so they add nothing below
          for (int64_t l = 0; l < kLanes; ++l) {
            dt_u[l] = dt[l] * u[l];
            g_u[l] = gy[l] * blk.d_skip[l];
            g_dt[l] = 0;
            grad_d[l] += gy[l] * u[l];
          }
          const int64_t btn = (blk.b * L + t) * N;
          const scalar_t* b_row = d.B + btn;
          const scalar_t* c_row = d.C + btn;
          const scalar_t* h_before = t > 0 ? h.data() + (t - 1) * row : zeros.data();
          for (int64_t n = 0; n < N; ++n) {
            const scalar_t bn = b_row[n], cn = c_row[n];
            const scalar_t* a_n = blk.a.data() + n * kLanes;
            const scalar_t* h_n = h.data() + t * row + n * kLanes;
            const scalar_t* h_prev = h_before + n * kLanes;
            const scalar_t* decay_n = decay.data() + t * row + n * kLanes;
            scalar_t* gh_n = grad_h.data() + n * kLanes;
            scalar_t* ga_n = grad_a.data() + n * kLanes;
            scalar_t to_b[kLanes], to_c[kLanes];
            for (int64_t l = 0; l < kLanes; ++l) {
              // h_t = decay_t * h_{t-1} + dt * B * u, decay_t = exp(dt * A); y_t gets C . h_t.
              const scalar_t g = gh_n[l] + gy[l] * cn;                  // dL/dh_t
              const scalar_t g_log_decay = g * h_prev[l] * decay_n[l];  // dL/d(dt * A)
              g_dt[l] += g_log_decay * a_n[l] + g * bn * u[l];
              ga_n[l] += g_log_decay * dt[l];
              g_u[l] += g * dt[l] * bn;
              to_b[l] = g * dt_u[l];
              to_c[l] = gy[l] * h_n[l];
              gh_n[l] = g * decay_n[l];
            }
            gB_part[btn + n] += laneSum(to_b);
            gC_part[btn + n] += laneSum(to_c);
          }
          scalar_t* gu_row = grad_u + (blk.b * L + t) * E + blk.e0;
          scalar_t* gdt_row = grad_delta + (blk.b * L + t) * E + blk.e0;
          for (int64_t l = 0; l < blk.lanes; ++l) {
            gu_row[l] = g_u[l];
            gdt_row[l] = g_dt[l];
          }
        }
        for (int64_t l = 0; l < blk.lanes; ++l) {
          gD_part[blk.e0 + l] += grad_d[l];
          for (int64_t n = 0; n < N; ++n) gA_part[(blk.e0 + l) * N + n] += grad_a[n * kLanes + l];
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
      forwardKernel<scalar_t>(scanData<scalar_t>(u, delta, A, B, C, D), y.data_ptr<scalar_t>(), nullptr);
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
    const int64_t blocks = batch * channelBlocks(channels);
    const int64_t slices = std::max<int64_t>(1, std::min<int64_t>(at::get_num_threads(), blocks));
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

at::Tensor fusedSelectiveScanWithState(const at::Tensor& u, const at::Tensor& delta, const at::Tensor& A,
                                       const at::Tensor& B, const at::Tensor& C, const at::Tensor& D,
                                       at::Tensor& final_state) {
  TORCH_CHECK(fusedScanSupports(u, delta, A, B, C, D),
              "fusedSelectiveScanWithState: needs fp32 or fp64 CPU tensors of one dtype");
  at::NoGradGuard no_grad;
  const at::Tensor uc = u.contiguous(), dc = delta.contiguous(), Ac = A.contiguous(), Bc = B.contiguous();
  const at::Tensor Cc = C.contiguous(), Dc = D.defined() ? D.contiguous() : at::Tensor();
  at::Tensor y = at::empty(uc.sizes(), uc.options());
  final_state = at::empty({uc.size(0), uc.size(2), Ac.size(1)}, uc.options());
  AT_DISPATCH_FLOATING_TYPES(uc.scalar_type(), "fusedSelectiveScanWithState", [&] {
    forwardKernel<scalar_t>(scanData<scalar_t>(uc, dc, Ac, Bc, Cc, Dc), y.data_ptr<scalar_t>(),
                            final_state.data_ptr<scalar_t>());
  });
  return y;
}

}  // namespace mixerlab::kernels
