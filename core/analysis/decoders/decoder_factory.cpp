// Which decoder serves which family, and each family's end-of-context policy (see token_decoder.h
// and docs/generation.md).
#include "core/analysis/decoders/token_decoder.h"
#include "core/models/objectives.h"
#include "core/util/error.h"

namespace mixerlab {
namespace {
bool isArch(const LanguageModel& model, const char* name) { return model.config().arch == name; }
}  // namespace

LanguageModel& nextTokenModel(LanguageModel& model) {
  const ModelConfig& c = model.config();
  if (c.objective == ModelObjective::kOneStepCompletion) {
    throw MixerLabError(
        "this checkpoint was trained with the one_step_completion objective, which predicts the second "
        "half of a window at once, not the next token",
        "generate with a next_token or multi_token checkpoint");
  }
  LanguageModel* base = &model;
  if (auto* wrapper = dynamic_cast<ObjectiveWrapper*>(&model)) base = &wrapper->base();
  const std::string& arch = c.arch;
  if (arch != "masked_mixer" && arch != "llama" && arch != "gpt" && arch != "transfixer" && arch != "mamba") {
    throw MixerLabError(
        "architecture \"" + arch + "\" does not generate text: it sees both sides or reconstructs its input",
        "generate with a masked_mixer, llama, gpt, transfixer or mamba checkpoint");
  }
  return *base;
}

ContextPolicy contextPolicy(const LanguageModel& model) {
  if (isArch(model, "masked_mixer") || isArch(model, "transfixer")) return ContextPolicy::kStopAtWindowEnd;
  if (isArch(model, "mamba")) return ContextPolicy::kUnbounded;
  return ContextPolicy::kSlideWindow;
}

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
  if (isArch(model, "masked_mixer")) return "cached-mixer";
  if (isArch(model, "mamba")) return "recurrent";
  return "kv-cache";
}

std::unique_ptr<TokenDecoder> makeTokenDecoder(LanguageModel& model, DecoderChoice choice, int64_t filler_id) {
  LanguageModel& base = nextTokenModel(model);
  if (choice == DecoderChoice::kReference) {
    if (contextPolicy(base) == ContextPolicy::kStopAtWindowEnd) return makeFixedWindowDecoder(base, filler_id);
    return makeRecomputeDecoder(base);
  }
  if (isArch(base, "masked_mixer")) return makeCachedMixerDecoder(base);
  if (isArch(base, "mamba")) return makeMambaRecurrentDecoder(base);
  return makeKvCacheDecoder(base);
}

}  // namespace mixerlab
