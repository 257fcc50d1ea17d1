// Form field specs, and form values -> GenerationSettings (see generation_settings_bridge.h).
#include "app/gui/generation/generation_settings_bridge.h"

#include "app/gui/common/form_field.h"
#include "core/analysis/sampling_fields.h"

namespace mixerlab::gui {

QVector<widgets::FieldSpec> samplingFormFields() { return toFormFields(generationFieldSpecs()); }

GenerationSettings toGenerationSettings(const widgets::SamplingValues& v) {
  GenerationSettings s;
  s.sampling.greedy = v.greedy;
  s.sampling.temperature = v.temperature;
  s.sampling.top_k = v.top_k;
  s.sampling.top_p = v.top_p;
  s.sampling.repetition_penalty = v.repetition_penalty;
  s.sampling.seed = v.seed;
  s.max_new_tokens = v.max_new_tokens;
  s.stop_string = v.stop_string.toStdString();
  s.stop_at_eos = v.stop_at_eos;
  s.decoder = v.reference_decoder ? DecoderChoice::kReference : DecoderChoice::kFast;
  s.placement = v.placement == "window_end"     ? PromptPlacement::kWindowEnd
                : v.placement == "window_start" ? PromptPlacement::kWindowStart
                                                : PromptPlacement::kAuto;
  return s;
}

}  // namespace mixerlab::gui
