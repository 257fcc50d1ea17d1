// What a family can do when it generates text, declared in its registry entry (model_registry.h):
// how its window ends, which fast decoder serves it and, for the KV-cache decoder, its one-token step.
// The decoders in core/analysis read only this; they name no family. A family without it does not
// generate (it sees both sides of a token, or reconstructs its input).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "core/models/incremental_stack.h"
#include "core/models/language_model.h"
#include "core/models/recurrent_stack.h"

namespace mixerlab {

enum class ContextPolicy {
  kStopAtWindowEnd,  // position-specific token mixing (masked mixers, Transfixer): position T-1 is the last
  kSlideWindow,      // attention-only transformers: once T tokens exist, predict from the last T (full recompute)
  kUnbounded,        // recurrent models (Mamba): the state carries on past the training length
};

// The fast decoder of a family, from core/analysis/decoders: row caches of a masked mixer's token
// mixing, KV caches over the family's IncrementalStack, the states of its RecurrentStack, or none
// (kReference: the reference decoders, one full forward per token; what a new family starts with).
enum class FastDecoder { kCachedMixer, kKvCache, kRecurrent, kReference };
std::string fastDecoderKindName(FastDecoder decoder);  // "cached-mixer", "kv-cache", "recurrent", "reference"

struct GenerationSupport {
  ContextPolicy context_policy = ContextPolicy::kSlideWindow;
  FastDecoder fast_decoder = FastDecoder::kKvCache;
  // The family's one-token step for the KV-cache decoder (required with FastDecoder::kKvCache); the
  // model passed is the family's own (never an objective wrapper).
  std::function<std::unique_ptr<IncrementalStack>(LanguageModel&)> make_stack;
  // The family's one-token step for the recurrent decoder (required with FastDecoder::kRecurrent).
  std::function<std::unique_ptr<RecurrentStack>(LanguageModel&)> make_recurrent;
};

}  // namespace mixerlab
