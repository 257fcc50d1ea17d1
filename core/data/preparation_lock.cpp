// The cache folder's preparation lock (see preparation_lock.h).
#include "core/data/preparation_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

namespace mixerlab {
namespace fs = std::filesystem;

void checkPreparationStop(const std::atomic<bool>* stop) {
  if (stop && stop->load()) throw PreparationStopped();
}

PreparationLock::PreparationLock(const fs::path& cache_dir, const std::atomic<bool>* stop,
                                 const std::function<void(const std::string&)>& log) {
  fs::create_directories(cache_dir);
  const fs::path path = cache_dir / ".prepare.lock";
  // O_NOFOLLOW: a symlink planted here is refused, never followed to a file outside the project.
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd_ < 0) {
    throw MixerLabError("cannot open the preparation lock " + path.string() + ": " + std::strerror(errno),
                        "check that the project's cache folder is writable (and that .prepare.lock is a file)");
  }
  bool told = false;
  while (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    if (!told && log) {
      char holder[64] = {};
      const ssize_t n = ::pread(fd_, holder, sizeof holder - 1, 0);
      log("waiting for " +
          (n > 0 ? std::string("pid ") + std::string(holder, static_cast<size_t>(n)) : "another process") +
          ", which is preparing data in " + cache_dir.string());
      told = true;
    }
    try {
      checkPreparationStop(stop);
    } catch (...) {
      ::close(fd_);
      throw;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  const std::string pid = std::to_string(::getpid());
  if (::ftruncate(fd_, 0) == 0 && ::pwrite(fd_, pid.data(), pid.size(), 0) < 0) {
    // the holder's pid is only for the message above
  }
}

PreparationLock::~PreparationLock() {
  if (fd_ >= 0) ::close(fd_);  // closing drops the flock
}

}  // namespace mixerlab
