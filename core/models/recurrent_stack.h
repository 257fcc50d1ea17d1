// A recurrent family's one-token step: what the recurrent decoder (core/analysis/decoders) drives
// to generate with a state-space family. The family owns the arithmetic (the prompt in one parallel
// pass that leaves each layer's state, then one token at a time through those states); the decoder
// owns the rest (batches, id checks, CUDA-graph replay). A family offers one through its registry
// entry (GenerationSupport::make_recurrent in generation_support.h).
#pragma once

#include <cstdint>

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

namespace mixerlab {

class RecurrentStack {
 public:
  virtual ~RecurrentStack() = default;
  virtual int64_t vocabSize() const = 0;
  virtual c10::Device device() const = 0;
  // ids [B, L] (one length): runs the prompts, keeps every layer's state after their last token
  // (replacing any earlier states) and returns the last position's logits [B, V].
  virtual at::Tensor prefill(const at::Tensor& ids) = 0;
  // ids [B]: one token per sequence, each layer's state advanced in place, so the step is static
  // (its tensors keep their addresses: the decoder may replay it as a CUDA graph). Logits [B, V].
  virtual at::Tensor step(const at::Tensor& ids) = 0;
};

}  // namespace mixerlab
