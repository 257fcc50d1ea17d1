// Mamba's one-token step (recurrent_stack.h): per layer the last d_conv inputs of the causal
// depthwise conv and the SSM state h [E, N] are all a new token needs, so each token costs the same
// however long the text is. The prompt goes through the model's own parallel forward once
// (MambaMixer::forward with a MambaRecurrentState), which leaves each layer's state after the last
// prompt token; feeding the prompt one token at a time is far slower (on a GPU about 17 tokens/s end
// to end at a 480-token prompt). A batch of B sequences keeps B states per layer.
#pragma once

#include <memory>

#include "core/models/language_model.h"
#include "core/models/recurrent_stack.h"

namespace mixerlab {

// The step of a MambaModel (`model` must be one; the registry passes the family's own model).
std::unique_ptr<RecurrentStack> makeMambaRecurrentStack(LanguageModel& model);

}  // namespace mixerlab
