// Form field specs, and form values -> InversionSettings (see inversion_settings_bridge.h).
#include "app/gui/inversion/inversion_settings_bridge.h"

#include "app/gui/common/form_field.h"
#include "core/analysis/inversion_fields.h"

namespace mixerlab::gui {

QVector<widgets::FieldSpec> inversionFormFields() { return toFormFields(inversionFields().specs()); }

InversionSettings toInversionSettings(const widgets::InversionFormValues& v) {
  InversionSettings s;
  s.iterations = v.iterations;
  s.learning_rate = v.learning_rate;
  s.init = v.paper_init ? InversionInit::kPaperNormal : InversionInit::kStandardNormal;
  s.objective = v.last_position ? InversionObjective::kLastPosition : InversionObjective::kAllPositions;
  s.reference = v.research_reference ? InversionReference::kNoisyPseudoInverse : InversionReference::kInput;
  s.top_k = v.top_k;
  s.seed = v.seed;
  return s;
}

std::vector<int64_t> layersFor(const widgets::InversionFormValues& v, int depth) {
  std::vector<int64_t> layers;
  for (int layer = 0; layer <= depth; ++layer) {
    if (v.all_layers || v.layers.contains(layer)) layers.push_back(layer);
  }
  return layers;
}

}  // namespace mixerlab::gui
