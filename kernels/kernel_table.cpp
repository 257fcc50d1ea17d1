// The custom kernels' table (see kernel_table.h).
#include "kernels/kernel_table.h"

#include <cmath>
#include <stdexcept>

#include "kernels/causal_token_mix.h"
#include "kernels/masked_token_mix.h"
#include "kernels/residual_layer_norm.h"
#include "kernels/selective_scan.h"

namespace mixerlab::kernels {

namespace {

constexpr double kLayerNormEps = 1e-5;

// fp64 and fp32 on the CPU: the fused loops accumulate in the input's precision (measured errors
// about 2e-16 and 5e-8).
const std::vector<KernelTolerance> kCpuTolerances = {{at::kDouble, 1e-12}, {at::kFloat, 1e-6}};
// Half precision on a GPU: the kernels accumulate in fp32, so the inputs' rounding dominates.
const std::vector<KernelTolerance> kCudaTolerances = {{at::kFloat, 1e-4}, {at::kBFloat16, 2e-2}, {at::kHalf, 2e-2}};

KernelEntry causalTokenMixEntry() {
  KernelEntry e;
  e.name = "causal_token_mix";
  e.description = "y = tril(W) x + bias over the tokens (the masked mixer's token mix)";
  e.cuda_source = "kernels/cuda/token_mix.cu";
  e.input_names = {"x", "weight", "bias"};
  e.output_names = {"y"};
  e.make_inputs = [](const KernelShape& s, const at::TensorOptions& o) {
    return std::vector<at::Tensor>{at::randn({s.batch, s.length, s.width}, o),
                                   at::randn({s.length, s.length}, o) / std::sqrt(double(s.length)),
                                   at::randn({s.length}, o)};
  };
  e.kernel = [](const std::vector<at::Tensor>& in) {
    return std::vector<at::Tensor>{causalTokenMix(in[0], in[1], in[2])};
  };
  e.reference = [](const std::vector<at::Tensor>& in) {
    return std::vector<at::Tensor>{maskedTokenMixAutograd(in[0], in[1], in[2], TokenMask::kCausal)};
  };
  e.cpu = kCpuTolerances;
  e.cuda = kCudaTolerances;
  return e;
}

KernelEntry residualLayerNormEntry() {
  KernelEntry e;
  e.name = "residual_layer_norm";
  e.description = "sum = x + residual, out = LayerNorm(sum) in one pass (every mixer and transformer block)";
  e.cuda_source = "kernels/cuda/residual_layer_norm.cu";
  e.input_names = {"x", "residual", "weight", "bias"};
  e.output_names = {"out", "sum"};
  e.make_inputs = [](const KernelShape& s, const at::TensorOptions& o) {
    return std::vector<at::Tensor>{2 * at::randn({s.batch, s.length, s.width}, o) + 1,
                                   at::randn({s.batch, s.length, s.width}, o), 1 + 0.2 * at::randn({s.width}, o),
                                   0.2 * at::randn({s.width}, o)};
  };
  e.kernel = [](const std::vector<at::Tensor>& in) {
    const auto [out, sum] = residualLayerNorm(in[0], in[1], in[2], in[3], kLayerNormEps);
    return std::vector<at::Tensor>{out, sum};
  };
  e.reference = [](const std::vector<at::Tensor>& in) {
    const auto [out, sum] = residualLayerNormUnfused(in[0], in[1], in[2], in[3], kLayerNormEps);
    return std::vector<at::Tensor>{out, sum};
  };
  e.cpu = kCpuTolerances;
  e.cuda = kCudaTolerances;
  return e;
}

KernelEntry selectiveScanEntry() {
  KernelEntry e;
  e.name = "selective_scan";
  e.description = "h_t = exp(delta A) h_{t-1} + delta B u, y = C h + D u (the Mamba block's scan)";
  e.cuda_source = "kernels/cuda/selective_scan.cu";
  e.input_names = {"u", "delta", "A", "B", "C", "D"};
  e.output_names = {"y"};
  e.make_inputs = [](const KernelShape& s, const at::TensorOptions& o) {
    return std::vector<at::Tensor>{
        at::randn({s.batch, s.length, s.width}, o), at::softplus(at::randn({s.batch, s.length, s.width}, o) - 1),
        -at::exp(at::randn({s.width, s.state}, o)), at::randn({s.batch, s.length, s.state}, o),
        at::randn({s.batch, s.length, s.state}, o), at::randn({s.width}, o)};
  };
  e.kernel = [](const std::vector<at::Tensor>& in) {
    return std::vector<at::Tensor>{selectiveScan(in[0], in[1], in[2], in[3], in[4], in[5], ScanMode::Fused)};
  };
  e.reference = [](const std::vector<at::Tensor>& in) {
    return std::vector<at::Tensor>{selectiveScan(in[0], in[1], in[2], in[3], in[4], in[5], ScanMode::Sequential)};
  };
  e.cpu = kCpuTolerances;
  e.cuda = kCudaTolerances;
  return e;
}

}  // namespace

const std::vector<KernelEntry>& kernelTable() {
  static const std::vector<KernelEntry> table = {causalTokenMixEntry(), residualLayerNormEntry(), selectiveScanEntry()};
  return table;
}

const KernelEntry& findKernel(const std::string& name) {
  std::string names;
  for (const KernelEntry& e : kernelTable()) {
    if (e.name == name) return e;
    names += (names.empty() ? "" : ", ") + e.name;
  }
  throw std::invalid_argument("unknown kernel \"" + name + "\" (the table has: " + names + ")");
}

std::string dtypeName(at::ScalarType dtype) {
  static const std::pair<at::ScalarType, const char*> kNames[] = {
      {at::kDouble, "fp64"}, {at::kFloat, "fp32"}, {at::kBFloat16, "bf16"}, {at::kHalf, "fp16"}};
  for (const auto& [type, name] : kNames) {
    if (type == dtype) return name;
  }
  return c10::toString(dtype);
}

}  // namespace mixerlab::kernels
