// InversionSettingsForm (see inversion_settings_form.h).
#include "widgets/inversion_settings_form.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QSpinBox>
#include <QVBoxLayout>
#include <algorithm>
#include <limits>

namespace mixerlab::widgets {

namespace {
constexpr int kLayerColumns = 5;  // layer boxes per line
}

InversionSettingsForm::InversionSettingsForm(QWidget* parent) : QWidget(parent) {
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

  iterations_ = new QSpinBox(this);
  iterations_->setObjectName("iterations");
  iterations_->setRange(1, 1000000);
  iterations_->setToolTip(tr("Gradient-descent steps N on the input embedding"));
  layout->addRow(tr("Iterations"), iterations_);
  learning_rate_ = new QDoubleSpinBox(this);
  learning_rate_->setObjectName("learning_rate");
  learning_rate_->setDecimals(4);
  learning_rate_->setRange(0.0001, 100.0);
  learning_rate_->setSingleStep(0.005);
  learning_rate_->setToolTip(tr("Initial step size \u03b7, decaying linearly to \u03b7/10 over the steps"));
  layout->addRow(tr("Learning rate"), learning_rate_);
  init_ = new QComboBox(this);
  init_->setObjectName("init");
  init_->addItem(tr("standard N(0, 1)"));
  init_->addItem(tr("paper N(1/2, 1/20)"));
  init_->setToolTip(tr("Start embedding: N(0,1) as in the research code, or N(1/2, 1/20) as in the paper's text"));
  layout->addRow(tr("Init"), init_);
  objective_ = new QComboBox(this);
  objective_->setObjectName("objective");
  objective_->addItem(tr("all positions"));
  objective_->addItem(tr("last position"));
  objective_->setToolTip(
      tr("Match every position's output, or only the last position's (the paper's \"non-self tokens\")"));
  layout->addRow(tr("Objective"), objective_);
  reference_ = new QComboBox(this);
  reference_->setObjectName("reference");
  reference_->addItem(tr("input tokens"));
  reference_->addItem(tr("research (noisy pseudo-inverse)"));
  reference_->setToolTip(
      tr("The token each position must recover: the input's own, or the research code's pseudo-inverse\n"
         "decoding of the noisy embedding (mostly noise for N(0, 0.02) transformer embeddings)"));
  layout->addRow(tr("Reference"), reference_);
  top_k_ = new QSpinBox(this);
  top_k_->setObjectName("top_k");
  top_k_->setRange(1, 100);
  top_k_->setToolTip(tr("A position counts as recovered when its token is among the top k decoded"));
  layout->addRow(tr("Top-k"), top_k_);
  seed_ = new QSpinBox(this);
  seed_->setObjectName("seed");
  seed_->setRange(0, std::numeric_limits<int>::max());
  seed_->setToolTip(tr("Seed of the start embedding and the reference noise"));
  layout->addRow(tr("Seed"), seed_);
  setValues(InversionFormValues());
  setDepth(0);
  for (QSpinBox* box : {iterations_, top_k_, seed_}) connect(box, &QSpinBox::valueChanged, this, &InversionSettingsForm::changed);
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
  v.paper_init = init_->currentIndex() == 1;
  v.last_position = objective_->currentIndex() == 1;
  v.research_reference = reference_->currentIndex() == 1;
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
  init_->setCurrentIndex(v.paper_init ? 1 : 0);
  objective_->setCurrentIndex(v.last_position ? 1 : 0);
  reference_->setCurrentIndex(v.research_reference ? 1 : 0);
  top_k_->setValue(v.top_k);
  seed_->setValue(static_cast<int>(v.seed));
  Q_EMIT changed();
}

}  // namespace mixerlab::widgets
