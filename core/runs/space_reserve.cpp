// Preallocated disk space for a run's final writes (see space_reserve.h).
#include "core/runs/space_reserve.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "core/util/error.h"
#include "core/util/no_follow.h"

namespace mixerlab {

SpaceReserve::SpaceReserve(std::filesystem::path path, int64_t bytes) : path_(std::move(path)) {
  const int fd = openNoFollow(path_, O_WRONLY | O_CREAT);
  int err = fd < 0 ? errno : ::posix_fallocate(fd, 0, static_cast<off_t>(bytes));  // returns the error
  if (fd >= 0 && ::close(fd) != 0 && err == 0) err = errno;
  if (err != 0) {
    ::unlink(path_.c_str());
    throw MixerLabError("cannot set aside " + std::to_string(bytes / 1024) + " KiB in " + path_.string() +
                            " for the run's final status: " + (err == ENOSPC ? "the disk is full" : std::strerror(err)),
                        "free disk space; without the reserve a disk that fills up may leave the status without "
                        "its reason");
  }
  held_ = true;
}

SpaceReserve::~SpaceReserve() { release(); }

void SpaceReserve::release() {
  if (!held_) return;
  held_ = false;
  ::unlink(path_.c_str());
}

}  // namespace mixerlab
