// The fields of ModelConfig (run.model): the one declaration behind the project parser, the JSON
// form stored in run.json and checkpoints, `mixerlab config schema`, the run form and the docs.
// Keys that only some families read are marked familySpecific; each family lists the ones it
// reads in ArchitectureInfo::model_keys. `options` is not a field here: each family declares its
// own option fields (ArchitectureInfo::options).
#pragma once
#include "core/models/model_config.h"
#include "core/util/field_set.h"

namespace mixerlab {

const FieldSet<ModelConfig>& modelFields();

}  // namespace mixerlab
