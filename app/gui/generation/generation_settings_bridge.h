// Converts the generation panel's form values (widgets::SamplingValues, plain Qt data) into the
// core's GenerationSettings, the one place that maps the form's fields and names onto the core's.
#pragma once
#include "core/analysis/generation.h"
#include "widgets/sampling_presets.h"

namespace mixerlab::gui {

GenerationSettings toGenerationSettings(const widgets::SamplingValues& values);

}  // namespace mixerlab::gui
