// Folder-name validation (see folder_name.h).
#include "core/util/folder_name.h"

#include <cctype>

#include "core/util/error.h"

namespace mixerlab {

std::string folderNameProblem(const std::string& name) {
  if (name.empty()) return "is empty";
  if (name.front() == '.') return "starts with '.' (\".\", \"..\" and hidden folders are not run folders)";
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
    throw MixerLabError(what + " \"" + name + "\" " + problem,
                        "use letters, digits, '-', '_' and '.', not starting with '.'");
  }
}

}  // namespace mixerlab
