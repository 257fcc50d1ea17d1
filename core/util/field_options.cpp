// Command-line names and help of declared fields (see field_options.h).
#include "core/util/field_options.h"

#include <cctype>

namespace mixerlab {

namespace {
std::string capitalised(std::string text) {
  if (!text.empty()) text[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(text[0])));
  return text;
}
bool onByDefault(const FieldSpec& spec) {
  return spec.type == FieldType::Boolean && spec.default_value.is_boolean() && spec.default_value.get<bool>();
}
}  // namespace

std::string fieldOptionName(const FieldSpec& spec) {
  if (!spec.flag.empty()) return spec.flag;
  std::string name = spec.key;
  for (char& c : name) {
    if (c == '_') c = '-';
  }
  return (onByDefault(spec) ? "--no-" : "--") + name;
}

std::string fieldOptionDefault(const FieldSpec& spec) {
  if (!spec.default_text.empty()) return spec.default_text;
  const nlohmann::json& value = spec.default_value;
  std::string text;
  if (value.is_null()) {
    text = "none";
  } else if (value.is_string()) {
    text = value.get<std::string>().empty() ? "none" : value.get<std::string>();
  } else {
    text = value.dump();
  }
  return spec.unit.empty() || value.is_string() || value.is_null() ? text : text + " " + spec.unit;
}

std::string fieldOptionHelp(const FieldSpec& spec) {
  if (spec.type == FieldType::Boolean) {
    return onByDefault(spec) ? "Turns off (on by default): " + spec.help : capitalised(spec.help);
  }
  return capitalised(spec.help) + " (default " + fieldOptionDefault(spec) + ")";
}

}  // namespace mixerlab
