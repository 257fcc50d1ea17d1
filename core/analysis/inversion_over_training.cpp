// Inversion at every checkpoint of a run (see inversion_over_training.h).
#include "core/analysis/inversion_over_training.h"

#include "core/runs/run_directory.h"
#include "core/train/checkpoint.h"
#include "core/util/error.h"

namespace mixerlab {
namespace fs = std::filesystem;

InversionOverTraining invertOverTraining(const fs::path& run_dir, const std::vector<std::string>& texts,
                                         const InversionSettings& settings, bool include_untrained,
                                         const OverTrainingProgressFn& progress, const std::atomic<bool>* cancel) {
  const std::vector<fs::path> saved = listCheckpoints(RunPaths{run_dir}.checkpoints());
  if (saved.empty()) {
    throw MixerLabError(run_dir.string() + " has no checkpoints",
                        "pass a run folder that has trained at least to its first checkpoint");
  }
  InversionOverTraining grid;
  std::vector<ModelSource> sources;
  if (include_untrained) {
    sources.push_back(ModelSource::untrainedLike(saved.front()));
    grid.checkpoints.emplace_back();
    grid.steps.push_back(0);
  }
  for (const auto& dir : saved) {
    sources.push_back(ModelSource::checkpoint(dir));
    grid.checkpoints.push_back(dir);
    grid.steps.push_back(readTrainerState(dir).step);
  }
  const size_t n_inputs = texts.size();
  for (size_t c = 0; c < sources.size(); ++c) {
    auto results = invertTexts(
        sources[c], texts, settings,
        [&](const InversionProgress& p) {
          if (progress) progress(c, sources.size(), p);
        },
        cancel);
    if (grid.layers.empty()) {
      for (size_t i = 0; i < results.size(); i += n_inputs) grid.layers.push_back(results[i].layer);
      grid.hamming_top_k.assign(grid.layers.size(), {});
      grid.hamming_exact.assign(grid.layers.size(), {});
    }
    for (size_t l = 0; l < grid.layers.size(); ++l) {
      double top = 0, exact = 0;
      size_t seen = 0;
      for (size_t i = 0; i < n_inputs && l * n_inputs + i < results.size(); ++i, ++seen) {
        top += results[l * n_inputs + i].hamming_top_k;
        exact += results[l * n_inputs + i].hamming_exact;
      }
      grid.hamming_top_k[l].push_back(seen > 0 ? top / static_cast<double>(seen) : 1.0);
      grid.hamming_exact[l].push_back(seen > 0 ? exact / static_cast<double>(seen) : 1.0);
    }
    const bool stopped = !results.empty() && results.back().cancelled;
    grid.results.push_back(std::move(results));
    if (stopped || (cancel != nullptr && cancel->load())) {
      grid.cancelled = true;
      break;
    }
  }
  return grid;
}

}  // namespace mixerlab
