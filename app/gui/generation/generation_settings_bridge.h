// Between the generation panel's form and the core: the form's field specs (made from the core's
// declarations, core/analysis/sampling_fields.h) and its values (widgets::SamplingValues, plain Qt
// data) converted into the core's GenerationSettings, the one place that maps the form's fields and
// names onto the core's.
#pragma once
#include <QVector>

#include "core/analysis/generation.h"
#include "widgets/forms/form_field_spec.h"
#include "widgets/forms/sampling_presets.h"

namespace mixerlab::gui {

// Every declared sampling and generation field, for SamplingSettingsForm.
QVector<widgets::FieldSpec> samplingFormFields();

GenerationSettings toGenerationSettings(const widgets::SamplingValues& values);

}  // namespace mixerlab::gui
