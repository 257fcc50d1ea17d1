// Crash-safe file writing (see atomic_file.h).
#include "core/util/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/util/error.h"

namespace mixerlab {
namespace fs = std::filesystem;

namespace {
std::string errnoText(int err) {
  if (err == ENOSPC) return "the disk is full";
  return std::strerror(err);
}
}  // namespace

std::string writeErrorFix(int err) {
  switch (err) {
    case ENOSPC:
    case EDQUOT:
    case EFBIG:
      return "free disk space";
    case ENAMETOOLONG:
      return "use a shorter path (a shorter --out folder, project folder or run name)";
    case EACCES:
    case EPERM:
    case EROFS:
      return "the folder is not writable: make it writable, or write elsewhere (--out)";
    default:
      return "check that the folder exists and is writable";
  }
}

void writeFileAtomic(const fs::path& path, std::string_view contents) {
  if (path.has_parent_path()) {
    std::error_code made;
    fs::create_directories(path.parent_path(), made);
    if (made) {
      throw MixerLabError("cannot create the folder " + path.parent_path().string() + ": " + made.message(),
                          writeErrorFix(made.value()));
    }
  }
  const fs::path tmp = path.string() + ".tmp-" + std::to_string(::getpid());
  // A stale temporary (or a link planted under its name) is removed, never written through; the
  // rename below replaces a link at `path` itself, not the file it points to.
  ::unlink(tmp.c_str());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int err = errno;
    throw MixerLabError("cannot create " + tmp.string() + ": " + errnoText(err), writeErrorFix(err));
  }
  size_t written = 0;
  while (written < contents.size()) {
    const ssize_t n = ::write(fd, contents.data() + written, contents.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      throw MixerLabError("cannot write " + path.string() + ": " + errnoText(err),
                          writeErrorFix(err) + "; the previous version of the file is unchanged");
    }
    written += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    throw MixerLabError("cannot flush " + path.string() + ": " + errnoText(err),
                        writeErrorFix(err) + "; the previous version of the file is unchanged");
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    ::unlink(tmp.c_str());
    throw MixerLabError("cannot rename " + tmp.string() + " to " + path.string() + ": " + ec.message());
  }
}

std::string readFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw MixerLabError("cannot open " + path.string() + ": " + std::strerror(errno),
                        "check the path (relative paths are resolved against the project file's folder)");
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

void syncDirectory(const fs::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

void renameAtomic(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  fs::rename(from, to, ec);
  if (ec) throw MixerLabError("cannot rename " + from.string() + " to " + to.string() + ": " + ec.message());
  syncDirectory(to.parent_path());
}

}  // namespace mixerlab
