// The Transfixer family's one-token step over KV caches and the rows its masked conv mixes
// (incremental_stack.h).
#pragma once

#include <memory>

#include "core/models/incremental_stack.h"
#include "core/models/language_model.h"

namespace mixerlab {

std::unique_ptr<IncrementalStack> makeTransfixerStack(LanguageModel& model);  // model: a Transfixer

}  // namespace mixerlab
