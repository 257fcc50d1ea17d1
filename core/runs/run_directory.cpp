// Run directory provenance helpers (see run_directory.h).
#include "core/runs/run_directory.h"

#include <link.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <thread>

#include <spdlog/version.h>
#include <torch/version.h>

#include "core/runs/retrieval_run_record.h"
#include "core/runs/run_status.h"
#include "mixerlab_build_info.h"

namespace mixerlab {

namespace fs = std::filesystem;

bool RunPaths::hasRunInfo() const { return fs::exists(runJson()); }

bool RunPaths::holdsRunRecords() const {
  std::error_code ec;
  for (const fs::path& record : {runJson(), status(), metrics(), log(), retrievalRunFile(root)}) {
    if (fs::exists(record, ec)) return true;
  }
  return fs::is_directory(checkpoints(), ec);  // checkpoints copied without the rest still load
}

namespace {
// "runs/a/checkpoints/step-5/" and "runs/a/checkpoints/step-5/." name step-5 too.
fs::path withoutTrailingSeparator(const fs::path& dir) {
  const fs::path normal = dir.lexically_normal();
  return normal.has_filename() || !normal.has_relative_path() ? normal : normal.parent_path();
}
}  // namespace

fs::path RunPaths::projectFolder() const { return withoutTrailingSeparator(root).parent_path().parent_path(); }

RunPaths RunPaths::ofCheckpoint(const fs::path& checkpoint_dir) {
  return RunPaths{withoutTrailingSeparator(checkpoint_dir).parent_path().parent_path()};
}

bool RunPaths::holdsCheckpoint(const fs::path& checkpoint_dir) {
  return withoutTrailingSeparator(checkpoint_dir).parent_path().filename() == RunPaths{}.checkpoints().filename();
}

std::vector<fs::path> listRunDirectories(const fs::path& runs_dir) {
  std::vector<fs::path> dirs;
  std::error_code ec;
  if (!fs::is_directory(runs_dir, ec)) return dirs;
  for (const auto& entry : fs::directory_iterator(runs_dir, ec)) {
    if (entry.is_directory(ec) && RunPaths{entry.path()}.holdsRunRecords()) dirs.push_back(entry.path());
  }
  std::sort(dirs.begin(), dirs.end());
  return dirs;
}

std::string toolVersion() { return MIXERLAB_VERSION; }
std::string gitCommit() { return MIXERLAB_GIT_COMMIT; }

std::string loadedBlasLibrary() {
  std::string found;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        const std::string name = info->dlpi_name ? info->dlpi_name : "";
        if (name.find("libblas") != std::string::npos || name.find("openblas") != std::string::npos ||
            name.find("libmkl") != std::string::npos) {
          char resolved[PATH_MAX];
          *static_cast<std::string*>(data) = realpath(name.c_str(), resolved) ? resolved : name;
          return 1;
        }
        return 0;
      },
      &found);
  return found;
}

bool isReferenceBlas(const std::string& blas_path) { return blas_path.find("/blas/libblas") != std::string::npos; }

nlohmann::json computePathsJson(const kernels::ComputePaths& paths) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [key, value] : kernels::computePathValues(paths)) j[key] = value;
  return j;
}

nlohmann::json environmentInfo(const std::string& device_description) {
  const std::string blas = loadedBlasLibrary();
  return {{"tool", "mixerlab"},
          {"tool_version", toolVersion()},
          {"git_commit", gitCommit()},
          {"host", hostName()},
          {"device", device_description},
          {"cpu_cores", std::thread::hardware_concurrency()},
          {"compute_paths", computePathsJson(kernels::activeComputePaths())},
          {"libraries",
           {{"libtorch", TORCH_VERSION},
            {"spdlog", std::to_string(SPDLOG_VER_MAJOR) + "." + std::to_string(SPDLOG_VER_MINOR)},
            {"nlohmann_json",
             std::to_string(NLOHMANN_JSON_VERSION_MAJOR) + "." + std::to_string(NLOHMANN_JSON_VERSION_MINOR)},
            {"blas", blas.empty() ? "unknown" : blas}}},
          {"created_at", utcTimestamp()}};
}

}  // namespace mixerlab
