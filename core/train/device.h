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
// CPU cores of this machine (at least 1).
int cpuCoreCount();
// The most CPU threads per core configureCpuThreads accepts. More only wait for each other: 1024
// threads on 2 cores started 862 and made no progress in 120 s. Checked when a run starts, not when
// the project is read, because a project file may be written on one machine and trained on another.
constexpr int kMaxCpuThreadsPerCore = 4;
// Sets LibTorch's intra-op threads explicitly (0 = all cores); returns the number used. Refuses (a
// MixerLabError naming `setting` and the core count, before any thread starts) more than
// kMaxCpuThreadsPerCore per core: an explicit setting is never silently changed.
int configureCpuThreads(int64_t requested, const std::string& setting = "--threads");
// The same refusal alone, without setting anything: a run checks it before its folder exists.
void requireCpuThreadsFit(int64_t requested, const std::string& setting);
// "cpu (2 threads, BLAS /usr/lib/.../libblas.so.3)" or "cuda:0".
std::string describeDevice(const c10::Device& device);

}  // namespace mixerlab
