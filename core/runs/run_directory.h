// Layout of a run directory, runs/<run-id>/:
//   run.json        resolved config + provenance (tool version, git commit, host, device, libraries)
//   metrics.jsonl   append-only metrics log (metrics_log.h)
//   log.txt         human-readable log
//   status.json     running / finished / failed (reason) / stopped (run_status.h)
//   checkpoints/    step-<N>/ folders and latest.json (train/checkpoint.h)
// RunPaths is the one place that spells these names; everything else asks it for a path.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernels/environment/compute_paths.h"

namespace mixerlab {

struct RunPaths {
  std::filesystem::path root;
  std::filesystem::path runJson() const { return root / "run.json"; }
  std::filesystem::path metrics() const { return root / "metrics.jsonl"; }
  std::filesystem::path log() const { return root / "log.txt"; }
  std::filesystem::path status() const { return root / "status.json"; }
  std::filesystem::path checkpoints() const { return root / "checkpoints"; }
  // True once the run has recorded its run.json (a started run, not just an empty folder).
  bool hasRunInfo() const;
  // True when the folder holds any of a run's records (run.json, status.json, metrics.jsonl,
  // log.txt, a retrieval run's record, a checkpoints/ folder): what tells a run from any other
  // folder under runs/.
  bool holdsRunRecords() const;
  // The project folder whose runs/ holds this run (<project>/runs/<id>, the layout MixerLab writes).
  std::filesystem::path projectFolder() const;
  // The run directory that holds a checkpoint folder (runs/<id>/checkpoints/step-<N>); a trailing
  // separator or "." in `checkpoint_dir` is ignored.
  static RunPaths ofCheckpoint(const std::filesystem::path& checkpoint_dir);
  // True when a checkpoint folder sits in a run's checkpoints/ folder (not, say, a copied-out step-<N>).
  static bool holdsCheckpoint(const std::filesystem::path& checkpoint_dir);
};

// The run directories under a project's runs/ folder, sorted by name; empty when it does not exist.
// A folder without a run's records (holdsRunRecords) is not a run and is left out: a user's notes,
// or everything under a runs/ link that points at the wrong place.
std::vector<std::filesystem::path> listRunDirectories(const std::filesystem::path& runs_dir);

// Provenance recorded in run.json and checkpoints; "compute_paths" holds computePathsJson of the
// process's active paths.
nlohmann::json environmentInfo(const std::string& device_description);
nlohmann::json computePathsJson(const kernels::ComputePaths& paths);  // {"token_mix": "auto", ...}

// The BLAS shared library LibTorch resolved at run time (e.g. .../openblas-pthread/libblas.so.3),
// and whether it is the slow reference implementation.
std::string loadedBlasLibrary();
bool isReferenceBlas(const std::string& blas_path);

std::string toolVersion();
std::string gitCommit();

}  // namespace mixerlab
