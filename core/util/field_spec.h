// The declarative description of one config field: its key, type, default, bounds or choices,
// unit, label, help text and group. A FieldSet (field_set.h) binds a list of them to the members
// of a config struct; the project parser, the family validators, `mixerlab config schema`, the
// GUI's run form and the docs tables are all generated from these descriptions, so a field is
// declared once. Lives in util (no torch) so every layer, models included, can declare fields.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace mixerlab {

enum class FieldType { Integer, Number, Boolean, Choice, Text };
std::string fieldTypeName(FieldType type);  // "integer", "number", "boolean", "choice", "text"

struct FieldSpec {
  std::string key;  // the key in its JSON object ("d_model"); schemas prefix the section
  FieldType type = FieldType::Text;
  nlohmann::json default_value;      // the struct's default; null when the field has none (required or derived)
  std::string default_text;          // docs wording when the default is not a plain value ("the tokenizer's")
  double min = 0, max = 0;           // inclusive bounds of Integer and Number fields
  std::vector<std::string> choices;  // Choice fields
  std::string unit;                  // "steps", "tokens", "s", ... (empty: none)
  std::string label;                 // short form label: "Learning rate"
  std::string help;                  // one sentence for tooltips and docs
  std::string group;                 // form and docs group: "Architecture", "Optimizer", ...
  bool required = false;
  // Model families the field applies to (family options, family-specific model keys); empty: all.
  std::vector<std::string> families;
  // The command-line option of a settings field when it is not "--" + the key with dashes ("--noise").
  std::string flag;
  // What forms show for each choice ("paper N(1/2, 1/20)"); empty: the choices themselves.
  std::vector<std::string> choice_labels;

  bool hasBounds() const { return (type == FieldType::Integer || type == FieldType::Number) && max >= min; }
  // {"key", "type", "default", "min", "max", "choices", "unit", "label", "help", "group", ...}
  nlohmann::json toJson() const;
  // The default as docs show it: default_text, else the JSON value ("required" when required).
  std::string defaultForDocs() const;
  // The accepted values as docs show them: "`a`, `b`", "1 to 64", ">= 0", "true, false", "text".
  std::string rangeForDocs() const;
};

}  // namespace mixerlab
