// Helpers for mapping MixerLab's module paths to the tensor names of the research code's
// checkpoints (LanguageModel::fileTensorName), where the research built a model differently:
// one stack split into encoder and decoder stacks, HF Llama models wrapped for their layers only.
#pragma once
#include <string>
#include <vector>

#include "core/util/text.h"

namespace mixerlab {

// `name` with a leading `from` replaced by `to` (unchanged when it does not start with `from`).
std::string replacePrefix(const std::string& name, const std::string& from, const std::string& to);

// "<stack>I.rest" -> "<first>I.rest" for I < split, else "<second>(I - split).rest". Unchanged when
// `name` does not start with `stack` followed by an index.
std::string splitStackName(const std::string& name, const std::string& stack, int64_t split, const std::string& first,
                           const std::string& second);

// The prefix under which the research's layers of a wrapped LlamaForCausalLM live:
// "<wrapper>.model.model.layers.".
std::string wrappedLlamaLayers(const std::string& wrapper);

// True for the parts of a wrapped LlamaForCausalLM the research saved but never used: its
// embed_tokens, final norm, lm_head and rotary buffers under "<wrapper>.model.".
bool isUnusedWrappedLlamaTensor(const std::string& name, const std::vector<std::string>& wrappers);

}  // namespace mixerlab
