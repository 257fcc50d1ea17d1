// The eval-split documents of a project, as training splits them (a separate eval file, or the
// documents the seeded split sets aside from the train corpus). Generation prompts, inversion and
// retrieval inputs come from here, so no analysis ever picks text the model trained on.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "core/config/project_config.h"

namespace mixerlab {

// The first `count` eval documents in corpus order. Throws MixerLabError naming the corpus file
// when it is missing.
std::vector<std::string> evalSplitDocuments(const ProjectConfig& project, size_t count);

}  // namespace mixerlab
