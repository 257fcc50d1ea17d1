// The one rule for names that become folders (run names, run ids): letters, digits, '-', '_' and
// '.', not starting with '.', so "." and "..", hidden folders and paths ("../x", "a/b") can never
// lead a run outside its runs/ folder or shadow a checkpoint or lock file.
#pragma once
#include <string>

namespace mixerlab {

// Empty when `name` is a valid folder name, else why not (for an error message).
std::string folderNameProblem(const std::string& name);

// Throws MixerLabError "<what> \"name\" ..." with the rule as the fix.
void requireFolderName(const std::string& name, const std::string& what);

}  // namespace mixerlab
