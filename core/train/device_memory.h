// Peak memory of a benchmark process: on a CUDA device the caching allocator's peak of allocated
// bytes (compiled only with MIXERLAB_WITH_CUDA, the build that has the CUDA headers), on the CPU the
// process's peak resident set (getrusage ru_maxrss, which is why each benchmark cell is a process of
// its own). Also the address-space limit `bench memory --memory-limit-gib` puts on a CPU cell.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include <c10/core/Device.h>

namespace mixerlab {

// Peak resident set of this process so far, in bytes.
int64_t processPeakRssBytes();
// Resident set and mapped address space of this process now (from /proc/self/status), in bytes.
int64_t processRssBytes();
int64_t processAddressSpaceBytes();

// Sets RLIMIT_AS (soft and hard) to `bytes`: a larger allocation then fails with ENOMEM instead of
// growing. Throws MixerLabError when the limit cannot be set.
void limitAddressSpace(int64_t bytes);

// Zeroes the caching allocator's peak statistics of `device` (nothing on the CPU or without
// MIXERLAB_WITH_CUDA).
void resetCudaPeakMemory(const c10::Device& device);
// The caching allocator's peak of allocated bytes on `device` since the last reset; nullopt on the
// CPU and in a build without MIXERLAB_WITH_CUDA.
std::optional<int64_t> cudaPeakAllocatedBytes(const c10::Device& device);
// The CUDA device's name ("NVIDIA H100 80GB HBM3"); empty on the CPU and without MIXERLAB_WITH_CUDA.
std::string cudaDeviceName(const c10::Device& device);

// True when an exception message reads as an allocation failure (CPU "can't allocate memory",
// CUDA "out of memory").
bool isOutOfMemoryMessage(const std::string& message);

}  // namespace mixerlab
