// JSON and docs forms of a field description (see field_spec.h).
#include "core/util/field_spec.h"

#include "core/util/enum_names.h"

namespace mixerlab {

namespace {
constexpr EnumName<FieldType> kFieldTypeNames[] = {{FieldType::Integer, "integer"},
                                                   {FieldType::Number, "number"},
                                                   {FieldType::Boolean, "boolean"},
                                                   {FieldType::Choice, "choice"},
                                                   {FieldType::Text, "text"}};
}  // namespace

std::string fieldTypeName(FieldType type) { return enumName(kFieldTypeNames, type, "text"); }

nlohmann::json FieldSpec::toJson() const {
  nlohmann::json j = {
      {"key", key},     {"type", fieldTypeName(type)}, {"default", default_value}, {"label", label}, {"help", help},
      {"group", group}, {"required", required}};
  if (hasBounds()) {
    j["min"] = min;
    j["max"] = max;
  }
  if (!choices.empty()) j["choices"] = choices;
  if (!unit.empty()) j["unit"] = unit;
  if (!default_text.empty()) j["default_text"] = default_text;
  if (!families.empty()) j["families"] = families;
  return j;
}

std::string FieldSpec::defaultForDocs() const {
  if (!default_text.empty()) return default_text;
  if (required) return "required";
  if (default_value.is_null()) return "none";
  if (default_value.is_string()) {
    const auto text = default_value.get<std::string>();
    return text.empty() ? "empty" : "`" + text + "`";
  }
  return default_value.dump();
}

std::string FieldSpec::rangeForDocs() const {
  if (!choices.empty()) {
    std::string list;
    for (const auto& c : choices) list += (list.empty() ? "`" : ", `") + c + "`";
    return list;
  }
  if (!hasBounds()) return type == FieldType::Boolean ? "true, false" : "text";
  auto text = [this](double v) {
    return type == FieldType::Integer ? std::to_string(static_cast<long long>(v)) : nlohmann::json(v).dump();
  };
  if (max >= 9.2e18) return ">= " + text(min);  // "no upper bound" (int64 max)
  return text(min) + " to " + text(max);
}

}  // namespace mixerlab
