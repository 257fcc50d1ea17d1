// A full disk on demand for tests: a small tmpfs mounted for a test's lifetime (needs root or
// CAP_SYS_ADMIN; error() says why not, so the test can skip naming the reason), and a filler file
// that leaves only a few bytes free.
#pragma once
#include <fcntl.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>

#include <QProcess>
#include <QString>

namespace mixerlab::testing {

// Mounts a tmpfs of `size` ("6m") at `at` for the test's lifetime; the error when it cannot be.
class SmallDisk {
 public:
  SmallDisk(const std::filesystem::path& at, const QString& size) : at_(at) {
    std::filesystem::create_directories(at);
    QProcess mount;
    mount.start("mount", {"-t", "tmpfs", "-o", "size=" + size, "tmpfs", QString::fromStdString(at.string())});
    if (!mount.waitForFinished(10000) || mount.exitCode() != 0) {
      error_ = "cannot mount a " + size + " tmpfs here (needs root or CAP_SYS_ADMIN): " +
               QString::fromUtf8(mount.readAllStandardError()).trimmed();
    }
  }
  ~SmallDisk() {
    if (error_.isEmpty()) QProcess::execute("umount", {QString::fromStdString(at_.string())});
  }
  const QString& error() const { return error_; }

 private:
  std::filesystem::path at_;
  QString error_;
};

// Allocates all of the file system's free space at `at` but `leave_bytes` (a filler file).
inline bool fillDiskLeaving(const std::filesystem::path& filler, int64_t leave_bytes) {
  struct statvfs disk {};
  if (::statvfs(filler.parent_path().c_str(), &disk) != 0) return false;
  const int64_t free_bytes = static_cast<int64_t>(disk.f_bavail) * static_cast<int64_t>(disk.f_frsize);
  if (free_bytes <= leave_bytes) return true;
  const int fd = ::open(filler.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  const bool filled = ::posix_fallocate(fd, 0, static_cast<off_t>(free_bytes - leave_bytes)) == 0;
  ::close(fd);
  return filled;
}

}  // namespace mixerlab::testing
