// How an incremental decoder runs one step: in inference mode (no autograd or version bookkeeping)
// and, when asked (`one_thread`, on the CPU), with one intra-op thread on the calling thread. A
// one-row step is a chain of matrix-vector products that the BLAS library (or the cached mixer's
// own team) spreads over its threads; ATen's OpenMP workers, woken by the small ops in between,
// would spin on the same cores (on 2 cores that made the cached mixer's step ~1.5x slower; see
// docs/generation.md). The same holds for the prefills of the cached mixer and the KV cache, whose
// time is in BLAS products: one OpenMP thread took the mixer's from 31.6 to 17 ms at 480 tokens
// (and left no OpenMP worker spinning into the first decode steps); Llama's end-to-end tokens/s at
// 480 went from 462-464 to 472-482.
#pragma once
#include <functional>

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>
#include <c10/core/InferenceMode.h>

namespace mixerlab {

class DecodeStepScope {
 public:
  DecodeStepScope(const c10::Device& device, bool one_thread);
  ~DecodeStepScope();
  DecodeStepScope(const DecodeStepScope&) = delete;
  DecodeStepScope& operator=(const DecodeStepScope&) = delete;

 private:
  c10::InferenceMode inference_;
  int restore_threads_ = 0;  // 0: the thread count was left alone
};

// Runs `step` (which returns next-token logits [V]) in a DecodeStepScope and returns the logits as a
// float64 CPU tensor, converted after the scope ends: a plain tensor callers may modify in place.
at::Tensor runDecodeStep(const c10::Device& device, bool one_thread, const std::function<at::Tensor()>& step);

}  // namespace mixerlab
