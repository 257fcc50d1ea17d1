// The sampling settings (SamplingSettings, sampling_settings.h) and the rest of the generation
// settings (GenerationSettings, generation.h: length, stop rules, decoder, prompt placement)
// declared once as fields: key, type, default (the structs' member initialisers), bounds or
// choices, unit, label and help. `mixerlab generate`'s options (names, help, range checks), the
// GUI's generation form (ranges, defaults, labels, tooltips) and the defaults they start from are
// all made from these lists.
#pragma once
#include <vector>

#include <nlohmann/json.hpp>

#include "core/analysis/generation.h"
#include "core/util/field_set.h"

namespace mixerlab {

// How each token is chosen: greedy, temperature, top_k, top_p, repetition_penalty, seed.
const FieldSet<SamplingSettings>& samplingFields();
// The rest of a generation: max_new_tokens, stop_string, stop_at_eos, decoder, placement.
const FieldSet<GenerationSettings>& generationFields();
// Both lists, sampling first: every field of GenerationSettings, keys unique.
std::vector<FieldSpec> generationFieldSpecs();

// GenerationSettings from an object keyed by those fields (absent keys keep their defaults);
// throws MixerLabError naming `source` and the field when a value is out of range or a key unknown.
GenerationSettings readGenerationSettings(const nlohmann::json& values, const std::string& source);
// The inverse: every field, keyed as declared.
nlohmann::json writeGenerationSettings(const GenerationSettings& settings);

}  // namespace mixerlab
