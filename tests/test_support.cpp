// Shared helpers for the Qt Test programs (see test_support.h).
#include "tests/test_support.h"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <fstream>

namespace mixerlab::testing {
namespace fs = std::filesystem;

namespace {
// Every test program keeps the GUI's settings in its own folder (app_settings.h), never in the
// user's configuration, whatever runs it (ctest or a test binary started by hand).
const bool kOwnSettingsScope = [] {
  if (std::getenv("MIXERLAB_SETTINGS_DIR") == nullptr) {
    const fs::path dir = fs::temp_directory_path() / ("mixerlab-test-settings-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    ::setenv("MIXERLAB_SETTINGS_DIR", dir.c_str(), 1);
  }
  return true;
}();
}  // namespace

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
