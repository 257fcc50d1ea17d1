// The decoders behind generation.h: each turns a token sequence into next-token logits, either by
// a full forward per token (the references) or incrementally (row caches, KV caches, recurrent
// state). A decoder holds one batch of sequences at a time (decoded in lockstep from prompts of one
// length; batch 1 for interactive generation), on the model's device, and never changes the model's
// weights. Which decoder serves a family, and what it does at the end of its window (its ContextPolicy),
// is the family's registry entry (GenerationSupport, core/models/generation_support.h).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>

#include "core/analysis/generation.h"
#include "core/models/generation_support.h"
#include "core/models/language_model.h"
#include "core/util/error.h"

namespace mixerlab {

class TokenDecoder {
 public:
  virtual ~TokenDecoder() = default;
  virtual std::string name() const = 0;
  // How the current sequence's one-token steps run, where a decoder has more than one way (the
  // cached mixer: "fused fp32 step (avx512 products, 3 threads)" or "ATen ops"); empty otherwise.
  virtual std::string stepDescription() const { return {}; }
  // Starts one sequence per prompt at position 0 (every prompt the same length, at least one token;
  // decode_batch.h refuses others by name); returns the logits [B, V] (float64, CPU) for the token
  // after each prompt. Sequence b's logits are those a batch of one would give for prompt b.
  virtual at::Tensor prefillBatch(const std::vector<std::vector<int64_t>>& prompts) = 0;
  // Appends ids[b] to sequence b (one id per sequence); returns the logits [B, V] for the next token.
  // With kStopAtWindowEnd the caller never appends past position T-1.
  virtual at::Tensor appendBatch(const std::vector<int64_t>& ids) = 0;

  // One sequence (a batch of one): logits [V].
  at::Tensor prefill(const std::vector<int64_t>& ids);
  at::Tensor append(int64_t id);
};

// The model generation runs: the base of a multi-token wrapper (its pass 0 is next-token), the model
// itself otherwise. Throws MixerLabError for models that do not predict the next token
// (autoencoders, bidirectional models, one-step completion).
LanguageModel& nextTokenModel(LanguageModel& model);

ContextPolicy contextPolicy(const LanguageModel& model);
std::string describeContextPolicy(const LanguageModel& model);

// `filler_id` fills the not-yet-written window positions of the fixed-window reference (any id
// works: causal masking hides them; the pad id keeps it readable when debugging).
std::unique_ptr<TokenDecoder> makeTokenDecoder(LanguageModel& model, DecoderChoice choice, int64_t filler_id);
std::string fastDecoderName(const LanguageModel& model);

// The references (reference_decoders.cpp) and the incremental decoders, one file each.
std::unique_ptr<TokenDecoder> makeFixedWindowDecoder(LanguageModel& model, int64_t filler_id);
std::unique_ptr<TokenDecoder> makeRecomputeDecoder(LanguageModel& model);
std::unique_ptr<TokenDecoder> makeCachedMixerDecoder(LanguageModel& model);
std::unique_ptr<TokenDecoder> makeKvCacheDecoder(LanguageModel& model);
std::unique_ptr<TokenDecoder> makeRecurrentDecoder(LanguageModel& model);
// The registry's GenerationSupport of `model`'s family (nullopt: it does not generate).
const std::optional<GenerationSupport>& familyGeneration(const LanguageModel& model);

// The step `model`'s family offers a fast decoder in its registry entry (`field`:
// &GenerationSupport::make_stack or ::make_recurrent, named `field_name`), made for `model`; throws
// naming the architecture and the field when the family offers none.
template <typename Step>
std::unique_ptr<Step> makeFamilyStep(LanguageModel& model,
                                     std::function<std::unique_ptr<Step>(LanguageModel&)> GenerationSupport::*field,
                                     const std::string& field_name);

template <typename Step>
std::unique_ptr<Step> makeFamilyStep(LanguageModel& model,
                                     std::function<std::unique_ptr<Step>(LanguageModel&)> GenerationSupport::*field,
                                     const std::string& field_name) {
  const auto& generation = familyGeneration(model);
  if (!generation || !((*generation).*field)) {
    throw MixerLabError("no " + field_name + " step for architecture \"" + model.config().arch + "\"",
                        "give the family a GenerationSupport::" + field_name + " in its registry entry");
  }
  return ((*generation).*field)(model);
}

}  // namespace mixerlab
