// The bundled demo project's location (see demo_project.h).
#include "core/runs/demo_project.h"

#include <cstdlib>

#include "kernels/environment/process_environment.h"
#include "mixerlab_build_info.h"

namespace mixerlab {
namespace fs = std::filesystem;

namespace {
fs::path writableDataFolder() {
  if (const auto xdg = kernels::environmentValue(kernels::EnvironmentVariable::kXdgDataHome)) {
    return fs::path(*xdg) / "mixerlab";
  }
  if (const auto home = kernels::environmentValue(kernels::EnvironmentVariable::kHome)) {
    return fs::path(*home) / ".local" / "share" / "mixerlab";
  }
  return fs::temp_directory_path() / "mixerlab";
}
}  // namespace

fs::path bundledProjectsFolder(const fs::path& executable) {
  const fs::path candidates[] = {fs::path("projects"),
                                 executable.parent_path() / ".." / "share" / "mixerlab" / "projects",
                                 fs::path(MIXERLAB_SOURCE_DIR_AT_BUILD) / "projects"};
  for (const fs::path& folder : candidates) {
    std::error_code ec;
    if (fs::exists(folder / "paper" / "reported_numbers.json", ec)) return fs::absolute(folder).lexically_normal();
  }
  return {};
}

fs::path demoProjectFile(const fs::path& executable) {
  std::error_code ec;
  const fs::path checkout = fs::path("projects") / "demo" / "project.json";
  if (fs::exists(checkout, ec)) return checkout;
  fs::path installed = executable.parent_path() / ".." / "share" / "mixerlab" / "projects" / "demo";
  // A build tree run from another folder: the demo of the checkout it was built from, in place
  // (a checkout is writable).
  const fs::path built_from = fs::path(MIXERLAB_SOURCE_DIR_AT_BUILD) / "projects" / "demo" / "project.json";
  if (!fs::exists(installed / "project.json", ec) && fs::exists(built_from, ec)) return built_from;
  if (!fs::exists(installed / "project.json", ec)) return {};
  const fs::path copy = writableDataFolder() / "demo";
  if (!fs::exists(copy / "project.json", ec)) {
    fs::create_directories(copy, ec);
    fs::copy(installed, copy, fs::copy_options::recursive | fs::copy_options::skip_existing, ec);
    if (ec) return (installed / "project.json").lexically_normal();  // read-only, but it opens
  }
  return copy / "project.json";
}

}  // namespace mixerlab
