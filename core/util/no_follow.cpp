// Link-refusing opens and link-safe removal (see no_follow.h).
#include "core/util/no_follow.h"

#include <fcntl.h>

#include <cerrno>
#include <system_error>

#include "core/util/error.h"

namespace mixerlab {
namespace fs = std::filesystem;

namespace {
[[noreturn]] void throwLinkRefused(const fs::path& path) {
  std::error_code ignored;
  const fs::path target = fs::read_symlink(path, ignored);
  throw MixerLabError(path.string() + " is a symbolic link" + (target.empty() ? "" : " to " + target.string()) +
                          ": MixerLab never writes or deletes through a link in a run folder",
                      "remove the link (rm " + path.string() + "); MixerLab then creates the file in its place");
}
}  // namespace

void refuseSymlink(const fs::path& path) {
  std::error_code ignored;
  if (fs::is_symlink(fs::symlink_status(path, ignored))) throwLinkRefused(path);
}

int openNoFollow(const fs::path& path, int flags) {
  const int fd = ::open(path.c_str(), flags | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0 && errno == ELOOP) {
    std::error_code ignored;
    if (fs::is_symlink(fs::symlink_status(path, ignored))) throwLinkRefused(path);
    errno = ELOOP;
  }
  return fd;
}

void removeNoFollow(const fs::path& path, std::error_code& error) {
  error.clear();
  const fs::file_status status = fs::symlink_status(path, error);
  if (error) {
    if (error == std::errc::no_such_file_or_directory) error.clear();
    return;
  }
  if (fs::is_symlink(status)) {
    fs::remove(path, error);
    return;
  }
  fs::remove_all(path, error);
}

}  // namespace mixerlab
