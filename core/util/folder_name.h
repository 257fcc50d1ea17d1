// The one rule for names that become folders (run names, run ids): letters, digits, '-', '_' and
// '.', not starting with '.', so "." and "..", hidden folders and paths ("../x", "a/b") can never
// lead a run outside its runs/ folder or shadow a checkpoint or lock file; not starting with '-',
// so a folder never reads as an option ("-rf") in a shell command; at most 100 characters, so the
// run's paths stay within the file system's limits (255 bytes a name) with room for step folders.
#pragma once
#include <cstddef>
#include <string>

namespace mixerlab {

inline constexpr size_t kMaxFolderNameChars = 100;
inline constexpr const char* kFolderNameRule =
    "use at most 100 letters, digits, '-', '_' and '.', not starting with '.' or '-'";

// Empty when `name` is a valid folder name, else why not (for an error message).
std::string folderNameProblem(const std::string& name);

// Throws MixerLabError "<what> \"name\" ..." with the rule as the fix.
void requireFolderName(const std::string& name, const std::string& what);

}  // namespace mixerlab
