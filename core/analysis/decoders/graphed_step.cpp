// CUDA-graph replay of a static decoder step (see graphed_step.h). The CUDA part compiles only in a
// MIXERLAB_WITH_CUDA build (a CUDA LibTorch); the Debian CPU build calls the step directly.
#include "core/analysis/decoders/graphed_step.h"

#include <string>

#include "kernels/environment/compute_paths.h"

#ifdef MIXERLAB_WITH_CUDA
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#endif

namespace mixerlab {
bool decodeGraphsRequested() { return kernels::activeComputePaths().decode_graphs; }

struct GraphedStep::Impl {
  std::function<at::Tensor()> step;
  at::Tensor output;
  void runStep() {
    const at::Tensor result = step();
    if (output.defined()) {
      output.copy_(result);
    } else {
      output = result;  // the first run (eager): later runs and the graph write into it
    }
  }
  int runs = 0;
#ifdef MIXERLAB_WITH_CUDA
  std::unique_ptr<at::cuda::CUDAGraph> graph;
  std::optional<c10::cuda::CUDAStream> side;
#endif
};

GraphedStep::GraphedStep(std::function<at::Tensor()> step) : impl_(std::make_unique<Impl>()) {
  impl_->step = std::move(step);
}

GraphedStep::~GraphedStep() = default;

bool GraphedStep::replaying() const {
#ifdef MIXERLAB_WITH_CUDA
  return impl_->graph != nullptr;
#else
  return false;
#endif
}

std::string GraphedStep::describe() const {
  return replaying() ? "static step, CUDA graph replay" : "static step, eager";
}

const at::Tensor& GraphedStep::run(const c10::Device& device) {
  Impl& g = *impl_;
  ++g.runs;
#ifdef MIXERLAB_WITH_CUDA
  if (device.is_cuda()) {
    if (g.graph) {
      g.graph->replay();
      return g.output;
    }
    if (!g.side) g.side = c10::cuda::getStreamFromPool(false, device.index());
    // The side stream starts after everything queued so far (the prefill, the input copies).
    c10::cuda::getCurrentCUDAStream(device.index()).synchronize();
    {
      c10::cuda::CUDAStreamGuard on_side(*g.side);
      if (g.runs == 1) {
        g.runStep();  // warm-up, and this token's real step
      } else {
        auto graph = std::make_unique<at::cuda::CUDAGraph>();
        graph->capture_begin();
        g.runStep();
        graph->capture_end();
        g.graph = std::move(graph);
      }
    }
    g.side->synchronize();
    if (g.graph) g.graph->replay();  // on the current stream, as every later step
    return g.output;
  }
#else
  (void)device;
#endif
  g.runStep();
  return g.output;
}

}  // namespace mixerlab
