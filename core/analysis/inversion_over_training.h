// Representation inversion over a run's training: the same inputs inverted at
// every saved checkpoint of a run (and, first, at its untrained twin), giving a layer x step grid
// of the Hamming distance. Runs keep only their last keep_checkpoints checkpoints; set it high (or
// 0 = all) when this is the plan. Torch-free header.
#pragma once
#include <atomic>
#include <filesystem>
#include <functional>
#include <vector>

#include "core/analysis/inversion.h"

namespace mixerlab {

struct InversionOverTraining {
  std::vector<std::filesystem::path> checkpoints;  // one per column; empty path for the untrained column
  std::vector<int64_t> steps;                      // the column's training step (0 for untrained)
  std::vector<int64_t> layers;                     // resolved layer per row
  // [row = layer][column = checkpoint]: mean over the inputs
  std::vector<std::vector<double>> hamming_top_k, hamming_exact;
  // [column][layer * inputs + input]: every result, for opening one cell's token diff
  std::vector<std::vector<InversionResult>> results;
  bool cancelled = false;
};

using OverTrainingProgressFn = std::function<void(size_t column, size_t columns, const InversionProgress&)>;

// `run_dir`: a run folder. Throws MixerLabError when it has no checkpoint.
InversionOverTraining invertOverTraining(const std::filesystem::path& run_dir, const std::vector<std::string>& texts,
                                         const InversionSettings& settings, bool include_untrained = true,
                                         const OverTrainingProgressFn& progress = {},
                                         const std::atomic<bool>* cancel = nullptr);

}  // namespace mixerlab
