// The exclusive lock a training process holds on its run directory for as long as it writes there
// (an flock on <run>/.lock, released by the kernel when the process dies, so a killed run never
// leaves a stale lock). A second `train` or `train --resume` of the same run is refused with the
// holder's pid and host instead of both writing the same metrics log and checkpoints.
#pragma once
#include <filesystem>

namespace mixerlab {

class RunLock {
 public:
  // Creates the run directory if needed. Throws MixerLabError naming the run and the holder when
  // another process (or another RunLock in this one) holds it.
  explicit RunLock(const std::filesystem::path& run_dir);
  ~RunLock();
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace mixerlab
