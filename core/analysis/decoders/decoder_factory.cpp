// Which decoder serves which family, and each family's end-of-context policy: both read from the
// family's registry entry (GenerationSupport), so no family is named here (see token_decoder.h and
// docs/generation.md).
#include "core/analysis/decoders/token_decoder.h"
#include "core/models/model_registry.h"
#include "core/models/objectives.h"
#include "core/util/error.h"

namespace mixerlab {

const std::optional<GenerationSupport>& familyGeneration(const LanguageModel& model) {
  return findArchitecture(model.config().arch).generation;
}

namespace {
const GenerationSupport& generationOf(const LanguageModel& model) {
  const auto& generation = familyGeneration(model);
  if (!generation) {
    throw MixerLabError("architecture \"" + model.config().arch +
                            "\" does not generate text: it sees both sides or reconstructs its input",
                        "generate with a checkpoint of " + generatingArchitectureNames());
  }
  return *generation;
}
}  // namespace

LanguageModel& nextTokenModel(LanguageModel& model) {
  if (model.config().objective == ModelObjective::kOneStepCompletion) {
    throw MixerLabError(
        "this checkpoint was trained with the one_step_completion objective, which predicts the second "
        "half of a window at once, not the next token",
        "generate with a next_token or multi_token checkpoint");
  }
  generationOf(model);
  if (auto* wrapper = dynamic_cast<ObjectiveWrapper*>(&model)) return wrapper->base();
  return model;
}

ContextPolicy contextPolicy(const LanguageModel& model) { return generationOf(model).context_policy; }

std::string describeContextPolicy(const LanguageModel& model) {
  const std::string t = std::to_string(model.config().context_length);
  switch (contextPolicy(model)) {
    case ContextPolicy::kStopAtWindowEnd:
      return "token-mixing weights are position-specific: generation stops when position " + t +
             "-1 is written (finish reason context_full)";
    case ContextPolicy::kSlideWindow:
      return "past " + t + " tokens the window slides: each next token is predicted from the last " + t +
             " tokens, recomputed at positions 0.." + t + "-1";
    case ContextPolicy::kUnbounded:
      return "recurrent state: generation continues past the training length " + t + " without limit";
  }
  return {};
}

std::string fastDecoderName(const LanguageModel& model) {
  return fastDecoderKindName(generationOf(model).fast_decoder);
}

std::unique_ptr<TokenDecoder> makeTokenDecoder(LanguageModel& model, DecoderChoice choice, int64_t filler_id) {
  LanguageModel& base = nextTokenModel(model);
  if (choice == DecoderChoice::kReference || generationOf(base).fast_decoder == FastDecoder::kReference) {
    if (contextPolicy(base) == ContextPolicy::kStopAtWindowEnd) return makeFixedWindowDecoder(base, filler_id);
    return makeRecomputeDecoder(base);
  }
  switch (generationOf(base).fast_decoder) {
    case FastDecoder::kCachedMixer:
      return makeCachedMixerDecoder(base);
    case FastDecoder::kRecurrent:
      return makeRecurrentDecoder(base);
    case FastDecoder::kKvCache:
    case FastDecoder::kReference:
      break;
  }
  return makeKvCacheDecoder(base);
}

}  // namespace mixerlab
