// SamplingSettingsForm (see sampling_settings_form.h).
#include "widgets/forms/sampling_settings_form.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QGridLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>

#include <limits>

#include "widgets/forms/field_editors.h"

namespace mixerlab::widgets {

namespace {
constexpr const char* kCustom = "Custom";
}  // namespace

SamplingSettingsForm::SamplingSettingsForm(const QVector<FieldSpec>& fields, QWidget* parent) : QWidget(parent) {
  auto spec = [&fields](const char* key) { return fieldSpec(fields, key); };
  preset_ = new QComboBox(this);
  preset_->setObjectName("preset");
  for (const SamplingPreset& preset : samplingPresets()) {
    preset_->addItem(preset.name);
    preset_->setItemData(preset_->count() - 1, preset.description, Qt::ToolTipRole);
  }
  preset_->addItem(kCustom);
  preset_->setItemData(preset_->count() - 1, tr("The fields below, as edited"), Qt::ToolTipRole);
  greedy_ = booleanEditor(spec("greedy"), this);
  temperature_ = numberEditor(spec("temperature"), 2, 0.05, this);
  top_k_ = integerEditor(spec("top_k"), this);
  top_k_->setSpecialValueText(tr("off"));  // 0
  top_p_ = numberEditor(spec("top_p"), 3, 0.01, this);
  repetition_penalty_ = numberEditor(spec("repetition_penalty"), 2, 0.05, this);
  seed_ = integerEditor(spec("seed"), this);
  max_new_tokens_ = integerEditor(spec("max_new_tokens"), this);
  stop_string_ = textEditor(spec("stop_string"), this);
  stop_string_->setPlaceholderText(tr("none"));
  stop_at_eos_ = booleanEditor(spec("stop_at_eos"), this);
  decoder_ = choiceEditor(spec("decoder"), this);
  placement_ = choiceEditor(spec("placement"), this);
  defaults_ = values();  // every editor starts at its spec's default

  auto* grid = new QGridLayout(this);
  grid->setContentsMargins(0, 0, 0, 0);
  grid->setHorizontalSpacing(6);
  grid->setVerticalSpacing(3);
  auto add = [&](int row, int column, const QString& label, QWidget* field) {
    if (!label.isEmpty()) grid->addWidget(new QLabel(label, this), row, column * 2, Qt::AlignRight);
    grid->addWidget(field, row, column * 2 + 1);
  };
  add(0, 0, tr("Preset"), preset_);
  add(0, 1, {}, greedy_);
  add(0, 2, spec("temperature").label, temperature_);
  add(0, 3, spec("top_k").label, top_k_);
  add(0, 4, spec("top_p").label, top_p_);
  add(0, 5, spec("repetition_penalty").label, repetition_penalty_);
  add(1, 0, spec("seed").label, seed_);
  add(1, 1, {}, stop_at_eos_);
  add(1, 2, spec("max_new_tokens").label, max_new_tokens_);
  add(1, 3, spec("stop_string").label, stop_string_);
  add(1, 4, spec("decoder").label, decoder_);
  add(1, 5, spec("placement").label, placement_);
  grid->setColumnStretch(12, 1);

  connect(preset_, &QComboBox::activated, this, [this](int index) {
    if (index < samplingPresets().size()) choosePreset(samplingPresets()[index].name);
  });
  auto edited = [this]() {
    if (setting_) return;
    updateEnabled();
    syncPresetBox();
    Q_EMIT changed();
  };
  connect(greedy_, &QCheckBox::toggled, this, edited);
  connect(stop_at_eos_, &QCheckBox::toggled, this, edited);
  for (QDoubleSpinBox* box : {temperature_, top_p_, repetition_penalty_})
    connect(box, &QDoubleSpinBox::valueChanged, this, edited);
  for (QSpinBox* box : {top_k_, seed_, max_new_tokens_}) connect(box, &QSpinBox::valueChanged, this, edited);
  connect(stop_string_, &QLineEdit::textChanged, this, edited);
  connect(decoder_, &QComboBox::currentIndexChanged, this, edited);
  connect(placement_, &QComboBox::currentIndexChanged, this, edited);
  setValues(defaults_);
}

SamplingValues SamplingSettingsForm::values() const {
  SamplingValues v;
  v.greedy = greedy_->isChecked();
  v.temperature = temperature_->value();
  v.top_k = top_k_->value();
  v.top_p = top_p_->value();
  v.repetition_penalty = repetition_penalty_->value();
  v.seed = static_cast<quint64>(seed_->value());
  v.max_new_tokens = max_new_tokens_->value();
  v.stop_string = stop_string_->text();
  v.stop_at_eos = stop_at_eos_->isChecked();
  v.reference_decoder = currentChoice(decoder_) == "reference";
  v.placement = currentChoice(placement_);
  return v;
}

void SamplingSettingsForm::setValues(const SamplingValues& v) {
  setting_ = true;
  greedy_->setChecked(v.greedy);
  temperature_->setValue(v.temperature);
  top_k_->setValue(v.top_k);
  top_p_->setValue(v.top_p);
  repetition_penalty_->setValue(v.repetition_penalty);
  seed_->setValue(static_cast<int>(std::min<quint64>(v.seed, std::numeric_limits<int>::max())));
  max_new_tokens_->setValue(v.max_new_tokens);
  stop_string_->setText(v.stop_string);
  stop_at_eos_->setChecked(v.stop_at_eos);
  setCurrentChoice(decoder_, v.reference_decoder ? "reference" : "fast");
  setCurrentChoice(placement_, v.placement);
  setting_ = false;
  updateEnabled();
  syncPresetBox();
  Q_EMIT changed();
}

bool SamplingSettingsForm::choosePreset(const QString& name) {
  for (const SamplingPreset& preset : samplingPresets()) {
    if (preset.name != name) continue;
    SamplingValues v = values();
    applyPreset(preset, v);
    setValues(v);
    return true;
  }
  return false;
}

QString SamplingSettingsForm::presetText() const { return preset_->currentText(); }

void SamplingSettingsForm::syncPresetBox() {
  const QSignalBlocker block(preset_);
  preset_->setCurrentText(presetName(values()));
}

void SamplingSettingsForm::updateEnabled() {
  const bool sampling = !greedy_->isChecked();
  for (QWidget* field : std::initializer_list<QWidget*>{temperature_, top_k_, top_p_, seed_})
    field->setEnabled(sampling);
}

}  // namespace mixerlab::widgets
