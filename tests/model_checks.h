// Property checks shared by the model tests (kept in one place so every family is held to the
// same definition of causality).
#pragma once
#include <QString>

#include "core/models/language_model.h"

namespace mixerlab::testing {

// Perturbs the tokens after t (for several t) and returns a description of the first violation:
// an output at a position <= t that changed, or no later output that changed (a model that ignores
// its input is not "causal"). Also checks that a shorter input gives the prefix of the full-length
// run. Empty when the model is causal. The model is put in eval mode.
QString causalityProblem(LanguageModel& model, int64_t length, int64_t batch = 2);

}  // namespace mixerlab::testing
