// Core field declaration -> widgets::FieldSpec (see form_field.h).
#include "app/gui/common/form_field.h"

#include <QMap>

#include "app/gui/common/json_bridge.h"

namespace mixerlab::gui {

namespace {
QString fromStd(const std::string& s) { return QString::fromStdString(s); }
}  // namespace

widgets::FieldSpec toFormField(const FieldSpec& spec) {
  using Form = widgets::FieldSpec;
  static const QMap<FieldType, Form::Type> kTypes = {{FieldType::Integer, Form::Integer},
                                                     {FieldType::Number, Form::Number},
                                                     {FieldType::Boolean, Form::Boolean},
                                                     {FieldType::Choice, Form::Choice},
                                                     {FieldType::Text, Form::Text}};
  Form f;
  f.key = fromStd(spec.key);
  f.label = fromStd(spec.label);
  f.type = kTypes.value(spec.type);
  f.default_value = spec.default_value.is_null() ? QVariant() : toQtValue(spec.default_value).toVariant();
  f.group = fromStd(spec.group);
  f.help = fromStd(spec.help + (spec.unit.empty() ? "" : " (" + spec.unit + ")") +
                   (spec.default_text.empty() ? "" : "; default: " + spec.default_text));
  if (spec.hasBounds()) {
    f.min = spec.min;
    f.max = spec.max;
  }
  for (const auto& c : spec.choices) f.choices << fromStd(c);
  for (const auto& label : spec.choice_labels) f.choice_labels << fromStd(label);
  for (const auto& family : spec.families) f.visible_for_arch << fromStd(family);
  return f;
}

QVector<widgets::FieldSpec> toFormFields(const std::vector<FieldSpec>& specs) {
  QVector<widgets::FieldSpec> fields;
  for (const auto& spec : specs) fields.push_back(toFormField(spec));
  return fields;
}

}  // namespace mixerlab::gui
