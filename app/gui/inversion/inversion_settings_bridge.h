// Between the inversion inspector's form and the core: the form's field specs (made from the
// core's declarations, core/analysis/inversion_fields.h) and its values
// (widgets::InversionFormValues, plain Qt data) converted into the core's InversionSettings: the
// one place that maps the form's fields onto the core's.
#pragma once
#include <QVector>
#include <cstdint>
#include <vector>

#include "core/analysis/inversion.h"
#include "widgets/forms/form_field_spec.h"
#include "widgets/forms/inversion_settings_form.h"

namespace mixerlab::gui {

// Every declared inversion field, for InversionSettingsForm.
QVector<widgets::FieldSpec> inversionFormFields();

// Everything but the layers, which depend on each model's depth (layersFor).
InversionSettings toInversionSettings(const widgets::InversionFormValues& values);

// The layers to invert in a model with blocks 1..depth: 0..depth for "all", else the ticked ones
// that exist in it (empty when none does).
std::vector<int64_t> layersFor(const widgets::InversionFormValues& values, int depth);

}  // namespace mixerlab::gui
