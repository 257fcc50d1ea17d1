// One decoder step's execution settings (see decode_step_scope.h). ATen's intra-op threads are
// OpenMP's, and at::set_num_threads also rebuilds other thread pools (about 0.2 ms a call), so the
// scope sets only the OpenMP thread count of the calling thread, through the OpenMP runtime that
// LibTorch loaded (looked up by name: a LibTorch wheel brings its own copy of libgomp).
#include "core/analysis/decoders/decode_step_scope.h"

#include <dlfcn.h>

#include <ATen/ATen.h>

namespace mixerlab {
namespace {

struct OpenMpThreadCount {
  using Get = int (*)();
  using Set = void (*)(int);
  Get get = reinterpret_cast<Get>(dlsym(RTLD_DEFAULT, "omp_get_max_threads"));
  Set set = reinterpret_cast<Set>(dlsym(RTLD_DEFAULT, "omp_set_num_threads"));
  bool found() const { return get != nullptr && set != nullptr; }
};

const OpenMpThreadCount& openMp() {
  static const OpenMpThreadCount functions;
  return functions;
}

}  // namespace

DecodeStepScope::DecodeStepScope(const c10::Device& device, bool one_thread) {
  if (!device.is_cpu() || !one_thread || !openMp().found()) return;
  const int threads = openMp().get();
  if (threads > 1) {
    restore_threads_ = threads;
    openMp().set(1);
  }
}

DecodeStepScope::~DecodeStepScope() {
  if (restore_threads_ > 0) openMp().set(restore_threads_);
}

at::Tensor runDecodeStep(const c10::Device& device, bool one_thread, const std::function<at::Tensor()>& step) {
  at::Tensor logits;
  {
    DecodeStepScope scope(device, one_thread);
    logits = step();
  }
  return logits.to(at::kCPU, at::kDouble);
}

}  // namespace mixerlab
