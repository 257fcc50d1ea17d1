// The GPT family's one-token step over KV caches (incremental_stack.h).
#pragma once

#include <memory>

#include "core/models/incremental_stack.h"
#include "core/models/language_model.h"

namespace mixerlab {

std::unique_ptr<IncrementalStack> makeGptStack(LanguageModel& model);  // model: a GptTransformer

}  // namespace mixerlab
