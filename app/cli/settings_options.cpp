// Settings options from field declarations (see settings_options.h).
#include "app/cli/settings_options.h"

#include <cstdint>
#include <limits>

#include <CLI/CLI.hpp>

#include "core/util/field_options.h"

namespace mixerlab::cli {
namespace {

// Checks a typed value against the field's inclusive bounds: "expected an integer from 1 to
// 1000000, got 0" (CLI11 names the option).
CLI::Validator boundsCheck(const FieldSpec& spec) {
  const bool integer = spec.type == FieldType::Integer;
  const double min = spec.min, max = spec.max;
  const std::string range = spec.rangeForDocs();
  return CLI::Validator(
      [integer, min, max, range](std::string& input) -> std::string {
        const std::string expected = std::string("expected ") + (integer ? "an integer " : "a number ") +
                                     (range.rfind(">=", 0) == 0 ? "" : "from ") + range + ", got " + input;
        if (integer) {
          int64_t value = 0;
          if (!CLI::detail::lexical_cast(input, value)) return expected;
          const bool unbounded = max >= static_cast<double>(std::numeric_limits<int64_t>::max());
          return value < static_cast<int64_t>(min) || (!unbounded && value > static_cast<int64_t>(max)) ? expected : "";
        }
        double value = 0;
        if (!CLI::detail::lexical_cast(input, value)) return expected;
        return value >= min && value <= max ? "" : expected;
      },
      range);
}

}  // namespace

void addSettingsOptions(CLI::App& command, const std::vector<FieldSpec>& specs, nlohmann::json& given) {
  for (const FieldSpec& spec : specs) {
    const std::string name = fieldOptionName(spec), help = fieldOptionHelp(spec), key = spec.key;
    switch (spec.type) {
      case FieldType::Boolean: {
        const bool set_to = !(spec.default_value.is_boolean() && spec.default_value.get<bool>());
        command.add_flag_function(
            name, [&given, key, set_to](int64_t) { given[key] = set_to; }, help);
        break;
      }
      case FieldType::Integer:
        command
            .add_option_function<int64_t>(
                name, [&given, key](const int64_t& value) { given[key] = value; }, help)
            ->check(boundsCheck(spec));
        break;
      case FieldType::Number:
        command
            .add_option_function<double>(
                name, [&given, key](const double& value) { given[key] = value; }, help)
            ->check(boundsCheck(spec));
        break;
      case FieldType::Choice:
        command
            .add_option_function<std::string>(
                name, [&given, key](const std::string& value) { given[key] = value; }, help)
            ->check(CLI::IsMember(spec.choices));
        break;
      case FieldType::Text:
        command.add_option_function<std::string>(
            name, [&given, key](const std::string& value) { given[key] = value; }, help);
        break;
    }
  }
}

}  // namespace mixerlab::cli
