// Device and CPU-thread selection for training and inference.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <c10/core/Device.h>

namespace mixerlab {

// "auto" picks CUDA when available, else CPU. Throws MixerLabError for "cuda" without a GPU.
c10::Device selectDevice(const std::string& requested);
// What this machine can train on, for choosing in the GUI: "auto", "cpu", then "cuda:0".."cuda:N-1"
// for the GPUs LibTorch sees.
std::vector<std::string> availableDevices();
// GPUs LibTorch sees (0 without CUDA).
int64_t cudaDeviceCount();
// Sets LibTorch's intra-op threads explicitly (0 = all cores); returns the number used.
int configureCpuThreads(int64_t requested);
// "cpu (2 threads, BLAS /usr/lib/.../libblas.so.3)" or "cuda:0".
std::string describeDevice(const c10::Device& device);

}  // namespace mixerlab
