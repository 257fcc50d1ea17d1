// JSON of text generation (see generation_json.h).
#include "core/analysis/generation_json.h"

#include "core/util/enum_names.h"

namespace mixerlab {

std::string decoderChoiceName(DecoderChoice decoder) {
  return decoder == DecoderChoice::kReference ? "reference" : "fast";
}

std::string promptPlacementName(PromptPlacement placement) {
  static constexpr EnumName<PromptPlacement> kNames[] = {{PromptPlacement::kAuto, "auto"},
                                                         {PromptPlacement::kWindowEnd, "window_end"},
                                                         {PromptPlacement::kWindowStart, "window_start"}};
  return enumName(kNames, placement, "auto");
}

nlohmann::json generationSettingsJson(const GenerationSettings& s) {
  return {{"greedy", s.sampling.greedy},
          {"temperature", s.sampling.temperature},
          {"top_k", s.sampling.top_k},
          {"top_p", s.sampling.top_p},
          {"repetition_penalty", s.sampling.repetition_penalty},
          {"seed", s.sampling.seed},
          {"max_new_tokens", s.max_new_tokens},
          {"stop_string", s.stop_string},
          {"stop_at_eos", s.stop_at_eos}};
}

nlohmann::json generatedTokenJson(const GeneratedToken& token) {
  nlohmann::json top = nlohmann::json::array();
  for (const auto& alternative : token.top) {
    top.push_back({{"id", alternative.id}, {"text", alternative.text}, {"prob", alternative.prob}});
  }
  return {{"id", token.id}, {"text", token.text}, {"prob", token.prob}, {"top", top}};
}

nlohmann::json generationResultJson(const GenerationResult& r) {
  nlohmann::json tokens = nlohmann::json::array();
  for (const auto& token : r.tokens) tokens.push_back(generatedTokenJson(token));
  return {{"decoder", r.decoder},
          {"prompt_ids", r.prompt_ids},
          {"prompt_dropped_tokens", r.prompt_dropped_tokens},
          {"pad_tokens", r.pad_tokens},
          {"ids", r.ids()},
          {"text", r.text},
          {"tokens", tokens},
          {"finish_reason", finishReasonName(r.finish)},
          {"prefill_ms", r.prefill_ms},
          {"decode_ms", r.decode_ms},
          {"tokens_per_s", r.tokens_per_s}};
}

}  // namespace mixerlab
