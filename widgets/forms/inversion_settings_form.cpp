// InversionSettingsForm (see inversion_settings_form.h).
#include "widgets/forms/inversion_settings_form.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QSpinBox>
#include <QVBoxLayout>
#include <algorithm>

#include "widgets/forms/field_editors.h"

namespace mixerlab::widgets {

namespace {
constexpr int kLayerColumns = 5;  // layer boxes per line
}

InversionSettingsForm::InversionSettingsForm(const QVector<FieldSpec>& fields, QWidget* parent) : QWidget(parent) {
  auto* layout = new QFormLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);

  auto* layers = new QWidget(this);
  layer_grid_ = new QGridLayout(layers);
  layer_grid_->setContentsMargins(0, 0, 0, 0);
  layer_grid_->setHorizontalSpacing(6);
  layer_grid_->setVerticalSpacing(0);
  all_layers_ = new QCheckBox(tr("all"), layers);
  all_layers_->setObjectName("all_layers");
  all_layers_->setChecked(true);
  all_layers_->setToolTip(tr("Every layer of each model: 0 (the embedding) to its last block"));
  layer_grid_->addWidget(all_layers_, 0, 0);
  connect(all_layers_, &QCheckBox::toggled, this, [this]() {
    updateLayerBoxes();
    Q_EMIT changed();
  });
  layout->addRow(tr("Layers"), layers);

  auto addRow = [&](const QString& key, auto make) {
    const FieldSpec spec = fieldSpec(fields, key);
    auto* editor = make(spec);
    layout->addRow(spec.label, editor);
    return editor;
  };
  iterations_ = addRow("iterations", [this](const FieldSpec& s) { return integerEditor(s, this); });
  learning_rate_ = addRow("learning_rate", [this](const FieldSpec& s) { return numberEditor(s, 4, 0.005, this); });
  init_ = addRow("init", [this](const FieldSpec& s) { return choiceEditor(s, this); });
  objective_ = addRow("objective", [this](const FieldSpec& s) { return choiceEditor(s, this); });
  reference_ = addRow("reference", [this](const FieldSpec& s) { return choiceEditor(s, this); });
  top_k_ = addRow("top_k", [this](const FieldSpec& s) { return integerEditor(s, this); });
  seed_ = addRow("seed", [this](const FieldSpec& s) { return integerEditor(s, this); });
  defaults_ = values();  // every editor starts at its spec's default
  setDepth(0);
  for (QSpinBox* box : {iterations_, top_k_, seed_})
    connect(box, &QSpinBox::valueChanged, this, &InversionSettingsForm::changed);
  connect(learning_rate_, &QDoubleSpinBox::valueChanged, this, &InversionSettingsForm::changed);
  for (QComboBox* box : {init_, objective_, reference_})
    connect(box, &QComboBox::currentIndexChanged, this, &InversionSettingsForm::changed);
}

void InversionSettingsForm::setDepth(int depth) {
  depth = std::max(0, depth);
  if (depth == this->depth()) return;
  for (QCheckBox* box : layer_boxes_) box->deleteLater();
  layer_boxes_.clear();
  for (int layer = 0; layer <= depth; ++layer) {
    auto* box = new QCheckBox(QString::number(layer), all_layers_->parentWidget());
    box->setObjectName(QString("layer_%1").arg(layer));
    box->setToolTip(layer == 0 ? tr("Layer 0: the input embedding itself") : tr("The output of block %1").arg(layer));
    const int slot = layer + 1;  // after "all"
    layer_grid_->addWidget(box, slot / kLayerColumns, slot % kLayerColumns);
    connect(box, &QCheckBox::toggled, this, [this, layer](bool on) {
      if (all_layers_->isChecked()) return;
      ticked_.removeAll(layer);
      if (on) ticked_.push_back(layer);
      std::sort(ticked_.begin(), ticked_.end());
      Q_EMIT changed();
    });
    layer_boxes_.push_back(box);
  }
  updateLayerBoxes();
}

void InversionSettingsForm::updateLayerBoxes() {
  const bool all = all_layers_->isChecked();
  for (int layer = 0; layer < layer_boxes_.size(); ++layer) {
    const QSignalBlocker block(layer_boxes_[layer]);
    layer_boxes_[layer]->setEnabled(!all);
    layer_boxes_[layer]->setChecked(all || ticked_.contains(layer));
  }
}

InversionFormValues InversionSettingsForm::values() const {
  InversionFormValues v;
  v.all_layers = all_layers_->isChecked();
  for (int layer : ticked_) {
    if (layer <= depth()) v.layers.push_back(layer);
  }
  v.iterations = iterations_->value();
  v.learning_rate = learning_rate_->value();
  v.paper_init = currentChoice(init_) == "paper";
  v.last_position = currentChoice(objective_) == "last";
  v.research_reference = currentChoice(reference_) == "research";
  v.top_k = top_k_->value();
  v.seed = static_cast<quint64>(seed_->value());
  return v;
}

void InversionSettingsForm::setValues(const InversionFormValues& v) {
  ticked_ = v.layers;
  std::sort(ticked_.begin(), ticked_.end());
  {
    const QSignalBlocker block(all_layers_);
    all_layers_->setChecked(v.all_layers);
  }
  updateLayerBoxes();
  iterations_->setValue(v.iterations);
  learning_rate_->setValue(v.learning_rate);
  setCurrentChoice(init_, v.paper_init ? "paper" : "standard");
  setCurrentChoice(objective_, v.last_position ? "last" : "all");
  setCurrentChoice(reference_, v.research_reference ? "research" : "input");
  top_k_->setValue(v.top_k);
  seed_->setValue(static_cast<int>(v.seed));
  Q_EMIT changed();
}

}  // namespace mixerlab::widgets
