// A core field declaration (core/util/field_spec.h) as the widgets' plain FieldSpec
// (widgets/forms/form_field_spec.h): the one conversion between the two, used for the run-setup form's
// schema and for the generation and inversion settings forms, so each form shows the declared
// label, default, bounds, choices and help.
#pragma once
#include <QVector>
#include <vector>

#include "core/util/field_spec.h"
#include "widgets/forms/form_field_spec.h"

namespace mixerlab::gui {

// The help carries the unit and any default_text: "peak AdamW learning rate (steps); default: ...".
widgets::FieldSpec toFormField(const FieldSpec& spec);
QVector<widgets::FieldSpec> toFormFields(const std::vector<FieldSpec>& specs);

}  // namespace mixerlab::gui
