// SamplingSettingsForm (see sampling_settings_form.h).
#include "widgets/sampling_settings_form.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QGridLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>

#include <limits>

namespace mixerlab::widgets {

namespace {
constexpr const char* kCustom = "Custom";

QDoubleSpinBox* doubleBox(QWidget* parent, const char* name, double min, double max, double step, int decimals) {
  auto* box = new QDoubleSpinBox(parent);
  box->setObjectName(name);
  box->setRange(min, max);
  box->setSingleStep(step);
  box->setDecimals(decimals);
  return box;
}

QSpinBox* intBox(QWidget* parent, const char* name, int min, int max) {
  auto* box = new QSpinBox(parent);
  box->setObjectName(name);
  box->setRange(min, max);
  return box;
}
}  // namespace

SamplingSettingsForm::SamplingSettingsForm(QWidget* parent) : QWidget(parent) {
  preset_ = new QComboBox(this);
  preset_->setObjectName("preset");
  for (const SamplingPreset& preset : samplingPresets()) {
    preset_->addItem(preset.name);
    preset_->setItemData(preset_->count() - 1, preset.description, Qt::ToolTipRole);
  }
  preset_->addItem(kCustom);
  preset_->setItemData(preset_->count() - 1, tr("The fields below, as edited"), Qt::ToolTipRole);
  greedy_ = new QCheckBox(tr("greedy"), this);
  greedy_->setObjectName("greedy");
  greedy_->setToolTip(tr("Always take the most likely token (ignores temperature, top-k, top-p and the seed)"));
  temperature_ = doubleBox(this, "temperature", 0.05, 5.0, 0.05, 2);
  temperature_->setToolTip(tr("Divide the logits by this before sampling"));
  top_k_ = intBox(this, "top_k", 0, 1000000);
  top_k_->setSpecialValueText(tr("off"));
  top_k_->setToolTip(tr("Sample among the k most likely tokens (off = all)"));
  top_p_ = doubleBox(this, "top_p", 0.01, 1.0, 0.01, 3);
  top_p_->setToolTip(tr("Sample among the most likely tokens that hold this probability mass (1 = all)"));
  repetition_penalty_ = doubleBox(this, "repetition_penalty", 1.0, 5.0, 0.05, 2);
  repetition_penalty_->setToolTip(tr("Divide positive logits (multiply negative ones) of tokens already present"));
  seed_ = intBox(this, "seed", 0, std::numeric_limits<int>::max());
  seed_->setToolTip(tr("Every column samples with this seed, so runs are comparable and repeatable"));
  max_new_tokens_ = intBox(this, "max_new_tokens", 1, 100000);
  stop_string_ = new QLineEdit(this);
  stop_string_->setObjectName("stop_string");
  stop_string_->setPlaceholderText(tr("none"));
  stop_string_->setToolTip(tr("Stop once the generated text contains this (the text is cut before it)"));
  stop_at_eos_ = new QCheckBox(tr("stop at end-of-text"), this);
  stop_at_eos_->setObjectName("stop_at_eos");
  decoder_ = new QComboBox(this);
  decoder_->setObjectName("decoder");
  decoder_->addItems({"fast", "reference"});
  decoder_->setToolTip(
      tr("fast: the family's incremental decoder (cached mixer rows, KV cache, recurrent state)\n"
         "reference: a full forward per token (the research's fixed-window method for mixers)"));
  placement_ = new QComboBox(this);
  placement_->setObjectName("placement");
  placement_->addItems({"auto", "window_end", "window_start"});
  placement_->setToolTip(
      tr("Where a masked mixer's or Transfixer's prompt sits in the context window\n"
         "(auto: window_end when the run trained on left-padded documents)"));

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
  add(0, 2, tr("Temperature"), temperature_);
  add(0, 3, tr("Top-k"), top_k_);
  add(0, 4, tr("Top-p"), top_p_);
  add(0, 5, tr("Repetition penalty"), repetition_penalty_);
  add(1, 0, tr("Seed"), seed_);
  add(1, 1, {}, stop_at_eos_);
  add(1, 2, tr("Max new tokens"), max_new_tokens_);
  add(1, 3, tr("Stop string"), stop_string_);
  add(1, 4, tr("Decoder"), decoder_);
  add(1, 5, tr("Placement"), placement_);
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
  connect(decoder_, &QComboBox::currentTextChanged, this, edited);
  connect(placement_, &QComboBox::currentTextChanged, this, edited);
  setValues(SamplingValues{});
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
  v.reference_decoder = decoder_->currentText() == "reference";
  v.placement = placement_->currentText();
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
  decoder_->setCurrentText(v.reference_decoder ? "reference" : "fast");
  placement_->setCurrentText(v.placement);
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
