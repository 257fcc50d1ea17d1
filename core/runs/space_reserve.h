// Disk space set aside for a run's last words: a preallocated file in the run folder, deleted just
// before the final status is written (and when the run ends), so that on a disk that filled up while
// the run trained the final status.json and the log's last line still find room. Without it a full
// disk left status.json "running" with the reason lost.
#pragma once
#include <cstdint>
#include <filesystem>

namespace mixerlab {

class SpaceReserve {
 public:
  // How much a run sets aside: room for a status.json and a few log lines on any block size.
  static constexpr int64_t kRunReserveBytes = 256 * 1024;

  // Allocates `bytes` to `path` (posix_fallocate: real blocks, not a sparse file). Throws
  // MixerLabError naming the file when the space cannot be set aside (the disk is already full).
  SpaceReserve(std::filesystem::path path, int64_t bytes);
  ~SpaceReserve();  // releases
  SpaceReserve(const SpaceReserve&) = delete;
  SpaceReserve& operator=(const SpaceReserve&) = delete;

  // Deletes the file, which gives its space back to the file system; later calls do nothing.
  void release();

 private:
  std::filesystem::path path_;
  bool held_ = false;
};

}  // namespace mixerlab
