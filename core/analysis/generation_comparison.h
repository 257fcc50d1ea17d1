// A side-by-side generation comparison (the GUI's Generate tab) as plain data: the prompt, the
// settings every column shared, each column's checkpoint and its samples (one story per seed, seed
// .. seed+N-1), the eval split's true continuation; and its two saved forms: JSON whose per-column
// fields are those of `mixerlab generate --json` (generation_json.h; with several samples, a
// "samples" list as `generate --samples N --json` writes), and Markdown with one section per column
// (a subsection per sample). Torch-free, Qt-free.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/analysis/generation.h"

namespace mixerlab {

struct ComparisonColumn {
  std::string checkpoint;  // the resolved checkpoint folder
  std::string run, step, architecture;
  std::vector<GenerationResult> samples;  // sample i used seed settings.sampling.seed + i; none: failed
  std::string error;
};

struct GenerationComparison {
  std::string prompt;
  GenerationSettings settings;
  int samples = 1;  // stories per column
  std::vector<ComparisonColumn> columns;
  std::optional<std::string> true_continuation;  // when the prompt came from the eval split
};

// {"prompt", "settings" (with "samples"), "true_continuation" (when known), "columns": [{"checkpoint",
// "run", "step", "architecture", "decoder", "prompt_ids", ..., "tokens", "finish_reason",
// "tokens_per_s"}]}. With several samples a column holds {"checkpoint", "run", "step",
// "architecture", "samples": [{"seed", "decoder", ..., "finish_reason"}]} instead.
nlohmann::json comparisonJson(const GenerationComparison& comparison);
std::string comparisonMarkdown(const GenerationComparison& comparison);
// Writes both files (atomically). Throws MixerLabError naming the file that failed.
void saveComparison(const GenerationComparison& comparison, const std::filesystem::path& json_path,
                    const std::filesystem::path& markdown_path);

}  // namespace mixerlab
