// The bundled demo project's location (see demo_project.h).
#include "core/runs/demo_project.h"

#include <cstdlib>

#include "kernels/environment/process_environment.h"

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

fs::path demoProjectFile(const fs::path& executable) {
  std::error_code ec;
  const fs::path checkout = fs::path("projects") / "demo" / "project.json";
  if (fs::exists(checkout, ec)) return checkout;
  const fs::path installed = executable.parent_path() / ".." / "share" / "mixerlab" / "projects" / "demo";
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
