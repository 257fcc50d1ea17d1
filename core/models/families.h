// Registry entries of the model families (one *_family.cpp each).
#pragma once
#include "core/models/model_registry.h"

namespace mixerlab {

ArchitectureInfo maskedMixerFamily();
ArchitectureInfo llamaFamily();

// Checks shared by all families (positive sizes, vocabulary, context).
void validateCommonSizes(const ModelConfig& c, std::vector<std::string>& problems);
// Adds the embedding, head and totals to a cost whose per-block layers are filled in.
void finishCost(const ModelConfig& c, ModelCost& cost, int64_t head_parameters, const std::string& formula);

}  // namespace mixerlab
