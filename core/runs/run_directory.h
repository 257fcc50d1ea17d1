// Layout of a run directory, runs/<run-id>/:
//   run.json        resolved config + provenance (tool version, git commit, host, device, libraries)
//   metrics.jsonl   append-only metrics log (metrics_log.h)
//   log.txt         human-readable log
//   status.json     running / finished / failed (reason) / stopped (run_status.h)
//   checkpoints/    step-<N>/ folders and latest.json (train/checkpoint.h)
#pragma once
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

namespace mixerlab {

struct RunPaths {
  std::filesystem::path root;
  std::filesystem::path runJson() const { return root / "run.json"; }
  std::filesystem::path metrics() const { return root / "metrics.jsonl"; }
  std::filesystem::path log() const { return root / "log.txt"; }
  std::filesystem::path checkpoints() const { return root / "checkpoints"; }
};

// Provenance recorded in run.json and checkpoints.
nlohmann::json environmentInfo(const std::string& device_description);

// The BLAS shared library LibTorch resolved at run time (e.g. .../openblas-pthread/libblas.so.3),
// and whether it is the slow reference implementation.
std::string loadedBlasLibrary();
bool isReferenceBlas(const std::string& blas_path);

std::string toolVersion();
std::string gitCommit();

}  // namespace mixerlab
