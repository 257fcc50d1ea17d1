// The table of custom kernels: for each op, how to make its inputs, the op as models call it, the
// plain ATen reference it must equal, whether a CUDA kernel serves it on a GPU, and the relative
// tolerance per device and dtype. One test (tests/core/test_kernel_table.cpp) runs every op x device
// x dtype of the table, forward and backward against the fp64 CPU reference and, in fp64, against
// central differences; `mixerlab bench kernels` times every op against its reference. A new kernel
// is one entry here.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <ATen/ATen.h>

namespace mixerlab::kernels {

// The sizes an op's inputs are made at: tokens mixed or scanned along `length`, `width` features
// (channels of the scan), `state` the scan's state size.
struct KernelShape {
  int64_t batch = 2, length = 8, width = 4, state = 4;
};

struct KernelTolerance {
  at::ScalarType dtype = at::kFloat;
  double relative = 1e-5;  // max |got - reference| / max |reference|, per output and per gradient
};

using KernelFunction = std::function<std::vector<at::Tensor>(const std::vector<at::Tensor>&)>;

struct KernelEntry {
  std::string name;         // "causal_token_mix"
  std::string description;  // one line for the bench and the test rows
  std::string cuda_source;  // the .cu file of its CUDA kernel (kernels/cuda/); empty: none
  std::vector<std::string> input_names, output_names;
  // Random inputs at `shape` with `options` (leaves, no gradient yet); every input is differentiable.
  std::function<std::vector<at::Tensor>(const KernelShape& shape, const at::TensorOptions& options)> make_inputs;
  KernelFunction kernel;                   // the custom op
  KernelFunction reference;                // the same arithmetic by plain ATen ops under autograd
  std::vector<KernelTolerance> cpu, cuda;  // the dtypes each device runs, with their tolerance
};

const std::vector<KernelEntry>& kernelTable();
// Throws std::invalid_argument listing the names when `name` is not in the table.
const KernelEntry& findKernel(const std::string& name);
std::string dtypeName(at::ScalarType dtype);  // "fp64", "fp32", "bf16", "fp16"

}  // namespace mixerlab::kernels
