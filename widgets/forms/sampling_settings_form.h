// The generation panel's settings form: a preset box (Greedy, Balanced, Creative, ...) that fills
// editable fields (temperature, top-k, top-p, repetition penalty), the seed every column shares,
// max new tokens, a stop string, stopping at end-of-text, the decoder and the prompt placement.
// Editing a token-choice field shows the preset it now matches, or "Custom". Each field's range,
// default, label and tooltip come from the plain specs the app passes in (made from the core's
// declarations).
#pragma once
#include <QVector>
#include <QWidget>

#include "widgets/forms/form_field_spec.h"
#include "widgets/forms/sampling_presets.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLineEdit;
class QSpinBox;

namespace mixerlab::widgets {

class SamplingSettingsForm : public QWidget {
  Q_OBJECT
 public:
  // `fields`: the specs of greedy, temperature, top_k, top_p, repetition_penalty, seed,
  // max_new_tokens, stop_string, stop_at_eos, decoder and placement.
  explicit SamplingSettingsForm(const QVector<FieldSpec>& fields, QWidget* parent = nullptr);

  SamplingValues values() const;
  void setValues(const SamplingValues& values);
  SamplingValues defaults() const { return defaults_; }  // the specs' defaults
  // Applies the named preset (as choosing it in the box does); false if there is none by that name.
  bool choosePreset(const QString& name);
  QString presetText() const;  // the preset box's text: a preset name or "Custom"

 Q_SIGNALS:
  void changed();

 private:
  void syncPresetBox();
  void updateEnabled();

  QComboBox* preset_ = nullptr;
  QCheckBox* greedy_ = nullptr;
  QDoubleSpinBox* temperature_ = nullptr;
  QSpinBox* top_k_ = nullptr;
  QDoubleSpinBox* top_p_ = nullptr;
  QDoubleSpinBox* repetition_penalty_ = nullptr;
  QSpinBox* seed_ = nullptr;
  QSpinBox* max_new_tokens_ = nullptr;
  QLineEdit* stop_string_ = nullptr;
  QCheckBox* stop_at_eos_ = nullptr;
  QComboBox* decoder_ = nullptr;
  QComboBox* placement_ = nullptr;
  bool setting_ = false;  // true while setValues fills the fields
  SamplingValues defaults_;
};

}  // namespace mixerlab::widgets
