// Which model an analysis (inversion, retrieval) runs on: a trained checkpoint, an untrained model
// with a checkpoint's config (the research compares every trained model with its untrained twin),
// or an untrained model of a project's run (no training needed). Torch-free so the GUI can hold it.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>

namespace mixerlab {

struct ModelSource {
  // A checkpoint or run folder (run_name empty), or a project file (run_name set; always untrained).
  std::filesystem::path path;
  std::string run_name;
  bool untrained = false;  // with a checkpoint: the same config and tokenizer, freshly initialised
  uint64_t seed = 0;       // initialisation seed of an untrained model; 0 = the run's train.seed

  static ModelSource checkpoint(const std::filesystem::path& dir) { return {dir, {}, false, 0}; }
  static ModelSource untrainedLike(const std::filesystem::path& dir) { return {dir, {}, true, 0}; }
  static ModelSource projectRun(const std::filesystem::path& project, const std::string& run) {
    return {project, run, true, 0};
  }
  // "runs/mixer/checkpoints/step-00000300" or "untrained mixer (demo)", for tables and legends.
  std::string label() const;
};

}  // namespace mixerlab
