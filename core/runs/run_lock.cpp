// RunLock (see run_lock.h).
#include "core/runs/run_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "core/runs/run_status.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/no_follow.h"

namespace mixerlab {
namespace fs = std::filesystem;

namespace {
std::string holderOf(int fd) {
  char text[256] = {};
  const ssize_t n = ::pread(fd, text, sizeof text - 1, 0);
  std::string holder = n > 0 ? std::string(text, static_cast<size_t>(n)) : std::string();
  while (!holder.empty() && (holder.back() == '\n' || holder.back() == ' ')) holder.pop_back();
  return holder.empty() ? "another process" : holder;
}

std::string thisProcess() { return "pid " + std::to_string(::getpid()) + " on " + hostName(); }
}  // namespace

RunLock::RunLock(const fs::path& run_dir) {
  std::error_code made;
  fs::create_directories(run_dir, made);
  if (made) {
    throw MixerLabError("cannot create the run folder " + run_dir.string() + ": " + made.message(),
                        writeErrorFix(made.value()));
  }
  const fs::path path = run_dir / ".lock";
  fd_ = openNoFollow(path, O_RDWR | O_CREAT);
  if (fd_ < 0) {
    const int err = errno;
    throw MixerLabError("cannot open the run lock " + path.string() + ": " + std::strerror(err), writeErrorFix(err));
  }
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const std::string holder = holderOf(fd_);
    ::close(fd_);
    fd_ = -1;
    throw MixerLabError("run " + run_dir.string() + " is in use by " + holder + " (a training process is writing it)",
                        "wait for that run to finish or stop it first; to train alongside it, use another --run-id");
  }
  const std::string me = thisProcess() + "\n";
  if (::ftruncate(fd_, 0) == 0) {
    [[maybe_unused]] const ssize_t written = ::pwrite(fd_, me.data(), me.size(), 0);
  }
}

RunLock::~RunLock() {
  if (fd_ >= 0) {
    ::flock(fd_, LOCK_UN);
    ::close(fd_);
  }
}

}  // namespace mixerlab
