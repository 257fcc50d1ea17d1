// Random inputs for the selective-scan tests (test_selective_scan, test_selective_scan_fused) and the
// one relative error they compare with, so both hold the scans to the same inputs and measure.
#pragma once
#include <algorithm>
#include <vector>

#include <torch/torch.h>

namespace mixerlab::testing {

// max |a - b| / max |b|: one relative error for the whole tensor.
inline double relativeError(const at::Tensor& a, const at::Tensor& b) {
  const double scale = std::max(b.abs().max().item<double>(), 1e-30);
  return (a - b).abs().max().item<double>() / scale;
}

struct ScanInputs {
  at::Tensor u, delta, A, B, C, D;
  std::vector<at::Tensor*> all() { return {&u, &delta, &A, &B, &C, &D}; }
};

// u, B, C ~ N(0, 1), delta = softplus(N(0, 1) - 1), A = -exp(N(0, 1)), D ~ N(0, 1) (left undefined
// without with_d), drawn in that order; every defined input requires grad.
inline ScanInputs randomScanInputs(int64_t batch, int64_t length, int64_t channels, int64_t state, bool with_d = true,
                                   at::ScalarType dtype = at::kFloat) {
  const auto opts = torch::TensorOptions().dtype(dtype);
  ScanInputs in;
  in.u = torch::randn({batch, length, channels}, opts);
  in.delta = torch::nn::functional::softplus(torch::randn({batch, length, channels}, opts) - 1.0);
  in.A = -torch::exp(torch::randn({channels, state}, opts));
  in.B = torch::randn({batch, length, state}, opts);
  in.C = torch::randn({batch, length, state}, opts);
  if (with_d) in.D = torch::randn({channels}, opts);
  for (auto* t : in.all()) {
    if (t->defined()) t->requires_grad_(true);
  }
  return in;
}

}  // namespace mixerlab::testing
