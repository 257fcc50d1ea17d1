// Shared helpers for the Qt Test programs (see test_support.h).
#include "tests/test_support.h"

#include <unistd.h>

#include <atomic>
#include <fstream>

namespace mixerlab::testing {
namespace fs = std::filesystem;

fs::path sourceDir() { return fs::path(MIXERLAB_SOURCE_DIR); }
fs::path demoTrainCorpus() { return sourceDir() / "projects/demo/data/stories-a.txt"; }
fs::path sharedDataDir() { return sourceDir() / "projects/demo/data"; }
fs::path cliPath() { return fs::path(MIXERLAB_CLI_PATH); }

fs::path makeScratchDir(const std::string& tag) {
  static std::atomic<int> counter{0};
  fs::path dir = fs::temp_directory_path() /
                 ("mixerlab-test-" + tag + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void writeText(const fs::path& path, const std::string& text) {
  if (path.has_parent_path()) fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary);
  out << text;
}

}  // namespace mixerlab::testing
