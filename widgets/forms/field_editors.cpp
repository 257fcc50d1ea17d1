// Editors from field specs (see field_editors.h).
#include "widgets/forms/field_editors.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QSpinBox>
#include <algorithm>
#include <limits>

#include "widgets/forms/wheel_guard.h"

namespace mixerlab::widgets {

namespace {
QString editorTooltip(const FieldSpec& spec) {
  return spec.help.isEmpty() ? spec.help : spec.help.left(1).toUpper() + spec.help.mid(1);
}

template <class Editor>
Editor* withSpec(Editor* editor, const FieldSpec& spec) {
  editor->setObjectName(spec.key);
  editor->setToolTip(editorTooltip(spec));
  guardWheel(editor);  // scrolling a form never changes a value under the pointer
  return editor;
}

int clampToIntRange(double value) {
  return static_cast<int>(
      std::clamp(value, double(std::numeric_limits<int>::min()), double(std::numeric_limits<int>::max())));
}
}  // namespace

FieldSpec fieldSpec(const QVector<FieldSpec>& fields, const QString& key) {
  for (const FieldSpec& spec : fields) {
    if (spec.key == key) return spec;
  }
  qWarning("no field spec for \"%s\": its editor has no range, default or label", qPrintable(key));
  FieldSpec missing;
  missing.key = key;
  missing.label = key;
  return missing;
}

QSpinBox* integerEditor(const FieldSpec& spec, QWidget* parent) {
  auto* box = withSpec(new QSpinBox(parent), spec);
  box->setRange(clampToIntRange(spec.min), clampToIntRange(spec.max));
  box->setValue(clampToIntRange(spec.default_value.toDouble()));
  return box;
}

QDoubleSpinBox* numberEditor(const FieldSpec& spec, int decimals, double step, QWidget* parent) {
  auto* box = withSpec(new QDoubleSpinBox(parent), spec);
  box->setDecimals(decimals);  // before the range, which is rounded to the decimals
  box->setRange(spec.min, spec.max);
  box->setSingleStep(step);
  box->setValue(spec.default_value.toDouble());
  return box;
}

QComboBox* choiceEditor(const FieldSpec& spec, QWidget* parent) {
  auto* box = withSpec(new QComboBox(parent), spec);
  for (int i = 0; i < spec.choices.size(); ++i) {
    box->addItem(i < spec.choice_labels.size() ? spec.choice_labels[i] : spec.choices[i], spec.choices[i]);
  }
  setCurrentChoice(box, spec.default_value.toString());
  return box;
}

QCheckBox* booleanEditor(const FieldSpec& spec, QWidget* parent) {
  auto* box = withSpec(new QCheckBox(spec.label, parent), spec);
  box->setChecked(spec.default_value.toBool());
  return box;
}

QLineEdit* textEditor(const FieldSpec& spec, QWidget* parent) {
  auto* edit = withSpec(new QLineEdit(parent), spec);
  edit->setText(spec.default_value.toString());
  return edit;
}

QString currentChoice(const QComboBox* box) { return box->currentData().toString(); }

void setCurrentChoice(QComboBox* box, const QString& choice) {
  const int index = box->findData(choice);
  if (index >= 0) box->setCurrentIndex(index);
}

}  // namespace mixerlab::widgets
