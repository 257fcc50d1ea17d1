// RunInfo: the typed form of a run's run.json, written once when a run starts (and again on a
// resume): the resolved run config, the project it came from, provenance, and the figures viewers
// need without rebuilding the model (parameter count, training FLOPs per token). Old run.json
// files without the newer keys still read. Torch-free, so the GUI can include it.
#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/config/project_config.h"

namespace mixerlab {

// Where a forked run started: another run's checkpoint folder and its step.
struct ForkOrigin {
  std::string checkpoint;  // absolute path of the checkpoints/step-<N> folder
  int64_t step = 0;
};

struct RunInfo {
  RunConfig run;                              // "run" (its model is also written as "model")
  nlohmann::json project;                     // "project": the resolved project JSON without "runs"
  std::string project_file;                   // "project_file"
  std::string tokenizer = "tokenizer.model";  // "tokenizer": file name inside each checkpoint
  nlohmann::json environment;                 // "environment": environmentInfo(device)
  uint64_t seed = 0;
  int64_t threads = 0;
  int64_t parameters = 0;               // 0 in runs written before it was recorded
  double training_flops_per_token = 0;  // forward + backward, per training token
  std::optional<ForkOrigin> forked_from;

  std::string device() const;  // environment.device, "" when unknown
  // The config part alone ("model", "run", "project", "project_file", "tokenizer"): what a
  // checkpoint's config.json holds.
  nlohmann::json configJson() const;
  nlohmann::json toJson() const;  // configJson() plus provenance and figures
  // Throws MixerLabError when the "run" object (with its "model") is missing or malformed.
  // Runs written before "parameters" / "training_flops_per_token" were recorded get them from the
  // model config's analytic cost.
  static RunInfo fromJson(const nlohmann::json& j);
};

// The project and run parts of a run.json (and of a checkpoint's config.json): run, model, project
// without its runs, project_file and tokenizer.
RunInfo runInfoFor(const ProjectConfig& project, const RunConfig& run);

void writeRunInfo(const std::filesystem::path& run_dir, const RunInfo& info);  // atomic
// Throws MixerLabError naming the file when it is missing or malformed.
RunInfo readRunInfo(const std::filesystem::path& run_dir);
// For live readers: nullopt while the run has not written it yet (or it cannot be read).
std::optional<RunInfo> tryReadRunInfo(const std::filesystem::path& run_dir);

}  // namespace mixerlab
