// Evaluation of a saved checkpoint on its run's eval split, reusable by the CLI (`mixerlab eval`)
// and the GUI: rebuilds the run's project from the checkpoint, prepares its data, averages the loss
// with the run's own eval weighting.
#pragma once
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/config/project_config.h"

namespace mixerlab {

struct CheckpointEval {
  std::filesystem::path checkpoint;  // the resolved checkpoint folder
  int64_t step = 0;
  double eval_loss = 0;
  int64_t eval_batches = 0;
  std::string eval_weighting;  // the run's train.eval_weighting ("samples" or "tokens")
};

// The one-run project a checkpoint was trained with: its config.json, with relative paths resolved
// against the original project file when that folder still exists, else against the checkpoint.
ProjectConfig checkpointProject(const std::filesystem::path& checkpoint_dir, const nlohmann::json& checkpoint_config);

// `checkpoint`: a checkpoint folder, or a run folder (its latest). max_batches 0 = all eval batches.
// The eval text is encoded with the checkpoint's own tokenizer.model.
// Data preparation lines (tokenizer, caches) go to `log` when given. Runs on the CPU.
CheckpointEval evaluateCheckpoint(const std::filesystem::path& checkpoint, int64_t max_batches,
                                  const std::function<void(const std::string&)>& log = {});

}  // namespace mixerlab
