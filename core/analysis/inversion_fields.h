// The inversion settings (InversionSettings, inversion.h) declared once as fields: key, type,
// default (the struct's member initialisers), bounds or choices, unit, label and help. `mixerlab
// invert`'s options (names, help, range checks), the GUI's inversion form (ranges, defaults,
// labels, tooltips) and the defaults they start from are all made from this list. The layers are
// not a field: they are a list that depends on each model's depth (--layer, the form's ticks).
#pragma once
#include "core/analysis/inversion.h"
#include "core/util/field_set.h"

namespace mixerlab {

const FieldSet<InversionSettings>& inversionFields();

}  // namespace mixerlab
