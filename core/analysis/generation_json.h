// JSON of text generation, shared by `mixerlab generate --json` and the GUI's saved side-by-side
// comparisons (generation_comparison.h) so that both write the same field names: the settings, one
// generated token with its top alternatives, and one generation result. Torch-free, Qt-free.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "core/analysis/generation.h"

namespace mixerlab {

// The command line's spellings: "fast" / "reference" and "auto" / "window_end" / "window_start".
std::string decoderChoiceName(DecoderChoice decoder);
std::string promptPlacementName(PromptPlacement placement);

// greedy, temperature, top_k, top_p, repetition_penalty, seed, max_new_tokens, stop_string,
// stop_at_eos (the decoder and placement choices are not in it: `generate --json` reports the
// decoder that ran in the result).
nlohmann::json generationSettingsJson(const GenerationSettings& settings);

// id, text, prob and top: [{id, text, prob}] (the most likely alternatives).
nlohmann::json generatedTokenJson(const GeneratedToken& token);

// decoder, prompt_ids, prompt_dropped_tokens, pad_tokens, ids, text, tokens (generatedTokenJson),
// finish_reason, prefill_ms, decode_ms and tokens_per_s.
nlohmann::json generationResultJson(const GenerationResult& result);

}  // namespace mixerlab
