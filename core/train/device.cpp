// Device and thread selection (see device.h).
#include "core/train/device.h"

#include <thread>

#include <torch/torch.h>

#include "core/runs/run_directory.h"
#include "core/util/error.h"

namespace mixerlab {

c10::Device selectDevice(const std::string& requested) {
  if (requested == "cpu") return c10::Device(c10::kCPU);
  const bool cuda = torch::cuda::is_available();
  if (requested == "auto") return cuda ? c10::Device(c10::kCUDA, 0) : c10::Device(c10::kCPU);
  if (!cuda) {
    throw MixerLabError("device \"" + requested + "\" requested but this LibTorch build sees no CUDA GPU",
                        "set train.device to \"cpu\" or \"auto\", or build with a CUDA-enabled LibTorch");
  }
  return c10::Device(requested);
}

int cpuCoreCount() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

void requireCpuThreadsFit(int64_t requested, const std::string& setting) {
  const int cores = cpuCoreCount();
  const int64_t most = int64_t{kMaxCpuThreadsPerCore} * cores;
  if (requested > most) {
    throw MixerLabError(setting + " is " + std::to_string(requested) + " but this machine has " +
                            std::to_string(cores) + " CPU core" + (cores == 1 ? "" : "s") + ": more than " +
                            std::to_string(most) + " threads (" + std::to_string(kMaxCpuThreadsPerCore) +
                            " per core) only wait for each other, and the run makes little or no progress",
                        "set " + setting + " to 0 (one thread per core) or at most " + std::to_string(most));
  }
}

int configureCpuThreads(int64_t requested, const std::string& setting) {
  requireCpuThreadsFit(requested, setting);
  const int threads = requested > 0 ? static_cast<int>(requested) : cpuCoreCount();
  at::set_num_threads(threads);
  return threads;
}

std::string describeDevice(const c10::Device& device) {
  if (device.is_cuda()) return device.str();
  return "cpu (" + std::to_string(at::get_num_threads()) + " threads, BLAS " + loadedBlasLibrary() + ")";
}

int64_t cudaDeviceCount() {
  return torch::cuda::is_available() ? static_cast<int64_t>(torch::cuda::device_count()) : 0;
}

std::vector<std::string> availableDevices() {
  std::vector<std::string> devices{"auto", "cpu"};
  const auto gpus = cudaDeviceCount();
  for (size_t k = 0; k < static_cast<size_t>(gpus); ++k) devices.push_back("cuda:" + std::to_string(k));
  return devices;
}

}  // namespace mixerlab
