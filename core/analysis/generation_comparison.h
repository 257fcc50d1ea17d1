// A side-by-side generation comparison (the GUI's Generate tab) as plain data: the prompt, the
// settings every column shared, each column's checkpoint and result, the eval split's true
// continuation; and its two saved forms: JSON whose per-column fields are those of `mixerlab
// generate --json` (generation_json.h), and Markdown with one section per column. Torch-free, Qt-free.
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
  std::optional<GenerationResult> result;  // none when the column failed
  std::string error;
};

struct GenerationComparison {
  std::string prompt;
  GenerationSettings settings;
  std::vector<ComparisonColumn> columns;
  std::optional<std::string> true_continuation;  // when the prompt came from the eval split
};

// {"prompt", "settings", "true_continuation" (when known), "columns": [{"checkpoint", "run",
// "step", "architecture", "decoder", "prompt_ids", ..., "tokens", "finish_reason", "tokens_per_s"}]}
nlohmann::json comparisonJson(const GenerationComparison& comparison);
std::string comparisonMarkdown(const GenerationComparison& comparison);
// Writes both files (atomically). Throws MixerLabError naming the file that failed.
void saveComparison(const GenerationComparison& comparison, const std::filesystem::path& json_path,
                    const std::filesystem::path& markdown_path);

}  // namespace mixerlab
