// A decoder's one-token step replayed as a CUDA graph. On a GPU a step of a small model
// is a hundred-odd kernels of a few microseconds each, and launching them from the host costs more
// than running them (the H200's cached mixer decoded 660-740 tokens/s at batch 1, slower than two
// CPU cores). A graph records the step's kernels once and replays them with one launch.
//
// The step must be static: it reads and writes only tensors whose addresses stay the same from one
// step to the next (an input buffer filled before run(), caches updated in place, an output buffer
// written with copy_), takes positions from device tensors, and never waits for the host (no item(),
// no copy to the CPU). The decoders keep such a step for each sequence and run it through here; on
// the CPU, or in a build without CUDA, run() simply calls it, which is how the tests check it.
//
// MIXERLAB_DECODE_GRAPHS=on switches the static steps on (cached mixer with flat kernel-1 mixing, KV
// cache of Llama and GPT, Mamba); off or unset keeps the decoders' usual steps. Off by default until
// a GPU session has measured it.
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

namespace mixerlab {

bool decodeGraphsRequested();  // the active compute paths' decode_graphs

class GraphedStep {
 public:
  // `step` returns its result (the logits); GraphedStep copies it into one output buffer, so a
  // replayed graph writes where the first run's result lives.
  explicit GraphedStep(std::function<at::Tensor()> step);
  ~GraphedStep();
  GraphedStep(const GraphedStep&) = delete;
  GraphedStep& operator=(const GraphedStep&) = delete;

  // Runs the step once. On a CUDA device: the first call runs it on a side stream (a warm-up: cuBLAS
  // handles and allocator blocks are made outside any capture), the second captures it on that stream
  // (capturing runs nothing) and replays it, later calls replay it. Elsewhere: calls it. Returns the
  // output buffer (valid until the next run).
  const at::Tensor& run(const c10::Device& device);
  bool replaying() const;        // a graph was captured and is being replayed
  std::string describe() const;  // "static step, CUDA graph replay" or "static step, eager"

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mixerlab
