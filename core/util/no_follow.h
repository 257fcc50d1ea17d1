// Files and folders of a run (and of a project's caches) are written and deleted without following
// symbolic links: a link planted where MixerLab writes a file is refused with the link's name, never
// written through, and deleting a folder that is a link removes the link, never what it points to.
// Only the last component is checked: a run folder or runs/ that is itself a link (runs kept on
// another disk) is the user's choice and is followed.
#pragma once
#include <filesystem>
#include <string>

namespace mixerlab {

// Throws MixerLabError naming `path` and its target when `path` is a symbolic link.
void refuseSymlink(const std::filesystem::path& path);

// ::open(path, flags | O_NOFOLLOW | O_CLOEXEC, 0644); a link at `path` throws as refuseSymlink does.
// Other failures return -1 with errno set, as ::open does.
int openNoFollow(const std::filesystem::path& path, int flags);

// Removes `path`: a link itself (never its target), else the folder and everything under it
// (std::filesystem::remove_all does not follow the links inside). Errors are returned in `error`.
void removeNoFollow(const std::filesystem::path& path, std::error_code& error);

}  // namespace mixerlab
