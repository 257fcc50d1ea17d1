// Command-line options made from declared settings fields (core/util/field_options.h): one option
// per field, named, described and range-checked as the field declares. The values given are
// collected by key into a JSON object that the field set then reads, so an option left out keeps
// the declared default and the command never repeats a default, a bound or a help text.
#pragma once
#include <vector>

#include <nlohmann/json.hpp>

#include "core/util/field_spec.h"

namespace CLI {
class App;
}

namespace mixerlab::cli {

// `given` must outlive the parse (a member of the command's shared options).
void addSettingsOptions(CLI::App& command, const std::vector<FieldSpec>& specs, nlohmann::json& given);

}  // namespace mixerlab::cli
