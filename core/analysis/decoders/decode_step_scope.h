// How an incremental decoder runs one step: in inference mode (no autograd or version bookkeeping)
// and, for a single new row on the CPU, with one intra-op thread on the calling thread. A one-row
// step is a chain of matrix-vector products that the BLAS library spreads over its own threads;
// ATen's OpenMP workers, woken by the small ops in between, would spin on the same cores (on 2
// cores that made the cached mixer's step ~1.5x slower; see docs/benchmarks.md, decoding).
#pragma once
#include <functional>

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>
#include <c10/core/InferenceMode.h>

namespace mixerlab {

class DecodeStepScope {
 public:
  DecodeStepScope(const c10::Device& device, bool one_row);
  ~DecodeStepScope();
  DecodeStepScope(const DecodeStepScope&) = delete;
  DecodeStepScope& operator=(const DecodeStepScope&) = delete;

 private:
  c10::InferenceMode inference_;
  int restore_threads_ = 0;  // 0: the thread count was left alone
};

// Runs `step` (which returns next-token logits [V]) in a DecodeStepScope and returns the logits as a
// float64 CPU tensor, converted after the scope ends: a plain tensor callers may modify in place.
at::Tensor runDecodeStep(const c10::Device& device, bool one_row, const std::function<at::Tensor()>& step);

}  // namespace mixerlab
