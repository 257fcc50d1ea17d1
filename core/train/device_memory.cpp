// Process and CUDA peak memory, the address-space limit (see device_memory.h). The CUDA calls are
// the only code here that needs the CUDA headers; the Debian (CPU) build compiles without them.
#include "core/train/device_memory.h"

#include <cerrno>
#include <cstring>
#include <fstream>

#include <sys/resource.h>

#ifdef MIXERLAB_WITH_CUDA
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDACachingAllocator.h>
#endif

#include "core/util/error.h"

namespace mixerlab {
namespace {

// A "Name:   123 kB" line of /proc/self/status, in bytes (0 when missing).
int64_t statusKiB(const std::string& key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key + ":", 0) == 0) return std::stoll(line.substr(key.size() + 1)) * 1024;
  }
  return 0;
}

}  // namespace

int64_t processPeakRssBytes() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  return static_cast<int64_t>(usage.ru_maxrss) * 1024;  // Linux reports KiB
}

int64_t processRssBytes() { return statusKiB("VmRSS"); }
int64_t processAddressSpaceBytes() { return statusKiB("VmSize"); }

void limitAddressSpace(int64_t bytes) {
  rlimit limit{};
  limit.rlim_cur = static_cast<rlim_t>(bytes);
  limit.rlim_max = static_cast<rlim_t>(bytes);
  if (::setrlimit(RLIMIT_AS, &limit) != 0) {
    throw MixerLabError(std::string("could not limit the address space (RLIMIT_AS): ") + std::strerror(errno));
  }
}

bool isOutOfMemoryMessage(const std::string& message) {
  return message.find("can't allocate memory") != std::string::npos ||
         message.find("out of memory") != std::string::npos || message.find("bad_alloc") != std::string::npos ||
         message.find("Cannot allocate memory") != std::string::npos;
}

#ifdef MIXERLAB_WITH_CUDA
void resetCudaPeakMemory(const c10::Device& device) {
  if (!device.is_cuda()) return;
  // LibTorch 2.x sets the caching allocator up at the first CUDA allocation and refuses to reset the
  // statistics of a device it has not set up yet ("Invalid device argument"): allocate once first.
  (void)at::empty({1}, at::TensorOptions().device(device));
  c10::cuda::CUDACachingAllocator::resetPeakStats(device.index() < 0 ? 0 : device.index());
}

std::optional<int64_t> cudaPeakAllocatedBytes(const c10::Device& device) {
  if (!device.is_cuda()) return std::nullopt;
  const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(device.index() < 0 ? 0 : device.index());
  // Entry 0 is StatType::AGGREGATE (all pools), in LibTorch 1.13 and 2.x alike; the enum itself moved
  // between namespaces (CUDACachingAllocator in 1.13, c10 in 2.x).
  return stats.allocated_bytes[0].peak;
}

std::string cudaDeviceName(const c10::Device& device) {
  if (!device.is_cuda()) return "";
  return at::cuda::getDeviceProperties(device.index() < 0 ? 0 : device.index())->name;
}
#else
void resetCudaPeakMemory(const c10::Device&) {}
std::optional<int64_t> cudaPeakAllocatedBytes(const c10::Device&) { return std::nullopt; }
std::string cudaDeviceName(const c10::Device&) { return ""; }
#endif

}  // namespace mixerlab
