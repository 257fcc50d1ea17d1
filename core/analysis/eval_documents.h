// The eval-split documents of a project, as training splits them (a separate eval file, or the
// documents the seeded split sets aside from the train corpus). Generation prompts, inversion and
// retrieval inputs come from here, so no analysis ever picks text the model trained on. A
// checkpoint's documents (checkpointEvalDocuments) are the one way the CLI and the GUI read them.
#pragma once
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "core/config/project_config.h"

namespace mixerlab {

// The first `count` eval documents in corpus order. Throws MixerLabError naming the corpus file
// when it is missing.
std::vector<std::string> evalSplitDocuments(const ProjectConfig& project, size_t count);

// The first `count` eval documents of the run `checkpoint` was trained with: a checkpoint folder,
// or a run folder (its latest checkpoint), the project rebuilt from the checkpoint's config.
// Throws MixerLabError naming the checkpoint or the corpus file when one is missing.
std::vector<std::string> checkpointEvalDocuments(const std::filesystem::path& checkpoint, size_t count);

}  // namespace mixerlab
