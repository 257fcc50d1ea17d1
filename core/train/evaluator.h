// Evaluation loss: token-weighted mean cross-entropy over eval batches (every non-ignored target
// counts once, so short padded rows do not get the weight of full ones).
#pragma once
#include <vector>

#include <c10/core/Device.h>

#include "core/data/batching.h"
#include "core/models/language_model.h"

namespace mixerlab {

double evaluateLoss(LanguageModel& model, const std::vector<Batch>& batches, const c10::Device& device);

}  // namespace mixerlab
