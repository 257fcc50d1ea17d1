// Editors configured from a plain FieldSpec (form_field_spec.h). The generation and inversion
// settings forms lay out their own fields, but each editor's object name (the field's key), range,
// default, label and tooltip come from the spec the app passes in, so no widget repeats them.
#pragma once
#include <QString>
#include <QVector>

#include "widgets/forms/form_field_spec.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLineEdit;
class QSpinBox;
class QWidget;

namespace mixerlab::widgets {

// The spec of `key` in `fields`; one holding only the key (and a warning) when the list lacks it.
FieldSpec fieldSpec(const QVector<FieldSpec>& fields, const QString& key);

// Each starts at the spec's default, with the key as object name and the help as tooltip.
QSpinBox* integerEditor(const FieldSpec& spec, QWidget* parent);  // bounds clamped to int's
QDoubleSpinBox* numberEditor(const FieldSpec& spec, int decimals, double step, QWidget* parent);
QComboBox* choiceEditor(const FieldSpec& spec, QWidget* parent);   // items: the choice labels; data: the choices
QCheckBox* booleanEditor(const FieldSpec& spec, QWidget* parent);  // its text is the label
QLineEdit* textEditor(const FieldSpec& spec, QWidget* parent);

// The choice a choiceEditor shows, and showing one by name (no change when it is not offered).
QString currentChoice(const QComboBox* box);
void setCurrentChoice(QComboBox* box, const QString& choice);

}  // namespace mixerlab::widgets
