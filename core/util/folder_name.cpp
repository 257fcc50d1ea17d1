// Folder-name validation (see folder_name.h).
#include "core/util/folder_name.h"

#include <cctype>

#include "core/util/error.h"

namespace mixerlab {

std::string folderNameProblem(const std::string& name) {
  if (name.empty()) return "is empty";
  if (name.front() == '.') return "starts with '.' (\".\", \"..\" and hidden folders are not run folders)";
  if (name.front() == '-') return "starts with '-' (shell commands would read such a folder as an option)";
  if (name.size() > kMaxFolderNameChars) {
    return "is " + std::to_string(name.size()) + " characters long, more than the " +
           std::to_string(kMaxFolderNameChars) + " a run folder name may have";
  }
  for (const char c : name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')) {
      return "may only contain letters, digits, '-', '_' and '.' (it names a folder)";
    }
  }
  return {};
}

void requireFolderName(const std::string& name, const std::string& what) {
  const std::string problem = folderNameProblem(name);
  if (!problem.empty()) {
    // A hostile name can be megabytes long: the message shows its start.
    const std::string shown = name.size() > 60 ? name.substr(0, 60) + "..." : name;
    throw MixerLabError(what + " \"" + shown + "\" " + problem, kFolderNameRule);
  }
}

}  // namespace mixerlab
