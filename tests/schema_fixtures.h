// Helpers for tests driven by the config schema: the family a run field can be tried on, a minimal
// one-run project, reading and writing a dotted key ("train.batch_size", "model.options.kernel")
// inside a JSON object, and the error a project gives (empty when it parses). The fields come from
// the schema and the family registry, so tests built on these cover new fields by themselves.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "core/util/field_spec.h"

namespace mixerlab::testing {

// The family a run field is tried on: any for a common field, else the first family that reads it
// ("" when no family does).
std::string familyFor(const FieldSpec& spec);
// A project with one run "r" of family `arch` (d_model 64, 2 layers, context 32, 10 steps) over a
// corpus that need not exist.
nlohmann::json baseProject(const std::string& arch);
void setAt(nlohmann::json& object, const std::string& dotted, const nlohmann::json& value);
// The value at `dotted`; null when a part of the path is missing.
nlohmann::json getAt(const nlohmann::json& object, const std::string& dotted);
// Empty when the project parses (corpus files may be missing); the error text otherwise.
std::string projectError(const nlohmann::json& project);

}  // namespace mixerlab::testing
