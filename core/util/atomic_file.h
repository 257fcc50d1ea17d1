// Crash-safe file writing: write to a temporary name in the same folder, fsync, then rename over
// the target, so a killed process or full disk never leaves a half-written file behind.
#pragma once
#include <filesystem>
#include <string>
#include <string_view>

namespace mixerlab {

// Writes `contents` to `path` atomically. Throws MixerLabError naming the path on failure
// (including ENOSPC), and removes the temporary file.
void writeFileAtomic(const std::filesystem::path& path, std::string_view contents);

// The fix to print beside a failed write or create, by its errno: free disk space (ENOSPC, EDQUOT,
// EFBIG), a shorter path (ENAMETOOLONG), a writable folder (EACCES, EPERM, EROFS), else a check of
// the folder. Never "free disk space" for a fault that is not space.
std::string writeErrorFix(int err);

// Reads a whole file; throws MixerLabError naming the path if it cannot be opened.
std::string readFile(const std::filesystem::path& path);

// Renames a finished temporary directory to its final name atomically (same filesystem).
void renameAtomic(const std::filesystem::path& from, const std::filesystem::path& to);

// fsyncs a directory so a rename inside it is durable.
void syncDirectory(const std::filesystem::path& dir);

}  // namespace mixerlab
