// Shared helpers for the Qt Test programs: paths to the repository and the CLI, scratch folders.
#pragma once
#include <exception>
#include <filesystem>
#include <string>

namespace mixerlab::testing {

std::filesystem::path sourceDir();        // repository root
std::filesystem::path sharedDataDir();    // ../shared/data/tinystories beside the repo, or the demo copy
std::filesystem::path demoTrainCorpus();  // projects/demo/data/stories-a.txt
std::filesystem::path cliPath();          // the built mixerlab executable
std::filesystem::path makeScratchDir(const std::string& tag);  // fresh empty folder under the temp dir
void writeText(const std::filesystem::path& path, const std::string& text);

// The message of the Exception that fn throws, or "" when it throws none (others propagate).
template <typename Exception = std::exception, typename Fn>
std::string errorOf(Fn&& fn) {
  try {
    fn();
  } catch (const Exception& e) {
    return e.what();
  }
  return {};
}

}  // namespace mixerlab::testing
