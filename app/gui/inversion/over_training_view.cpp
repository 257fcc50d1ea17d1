// The inspector's over-training page (see over_training_view.h).
#include "app/gui/inversion/over_training_view.h"

#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QSplitter>
#include <QVBoxLayout>

#include "app/gui/common/checkpoint_choice.h"
#include "app/gui/common/elided_text.h"
#include "app/gui/inversion/inversion_view_bridge.h"
#include "core/runs/run_directory.h"
#include "widgets/forms/refreshing_combo_box.h"
#include "widgets/inversion/inversion_diff_view.h"
#include "widgets/inversion/inversion_heatmap.h"

namespace mixerlab::gui {

OverTrainingView::OverTrainingView(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  auto* controls = new QHBoxLayout;
  run_box_ = new widgets::RefreshingComboBox(this);
  run_box_->setObjectName("over_training_run");
  run_box_->setMinimumContentsLength(18);
  run_box_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  run_box_->setToolTip(
      tr("A run of the project: every checkpoint it kept is a column (keep_checkpoints says how many)"));
  connect(run_box_, &QComboBox::currentIndexChanged, this, &OverTrainingView::runChanged);
  connect(run_box_, &widgets::RefreshingComboBox::popupAboutToShow, this, &OverTrainingView::refreshRuns);
  folder_ = new QPushButton(tr("Folder..."), this);
  connect(folder_, &QPushButton::clicked, this, [this]() {
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Choose a run folder"), runs_directory_);
    if (!dir.isEmpty()) showMessage(setRun(dir));
  });
  inputs_ = new QSpinBox(this);
  inputs_->setObjectName("over_training_inputs");
  inputs_->setRange(0, 20);
  inputs_->setSpecialValueText(tr("the input text"));
  inputs_->setSuffix(tr(" eval documents"));
  inputs_->setValue(kDefaultEvalDocuments);
  inputs_->setToolTip(
      tr("Invert the first N documents of the run's eval split (the mean is shown), or the input text"));
  metric_ = new QComboBox(this);
  metric_->setObjectName("over_training_metric");
  metric_->addItems({tr("top-k"), tr("exact")});
  connect(metric_, &QComboBox::currentIndexChanged, this, [this]() { redrawHeatmap(); });
  start_ = new QPushButton(tr("Invert over training"), this);
  start_->setObjectName("over_training_start");
  start_->setToolTip(
      tr("Invert the inputs at every checkpoint of the run, its untrained twin first, with the "
         "settings and layers on the left"));
  connect(start_, &QPushButton::clicked, this, &OverTrainingView::startRequested);
  controls->addWidget(new QLabel(tr("Run:"), this));
  controls->addWidget(run_box_, 1);
  controls->addWidget(folder_);
  controls->addSpacing(8);
  controls->addWidget(new QLabel(tr("Inputs:"), this));
  controls->addWidget(inputs_);
  controls->addWidget(new QLabel(tr("Metric:"), this));
  controls->addWidget(metric_);
  controls->addWidget(start_);
  layout->addLayout(controls);
  auto* progress_line = new QHBoxLayout;
  progress_ = new QProgressBar(this);
  progress_->setRange(0, 1000);
  progress_->setFixedWidth(160);
  progress_->setTextVisible(false);
  progress_->hide();
  status_ = new QLabel(
      tr("Choose a run and start: the heatmap shows how much of the input each layer keeps as it trains."), this);
  status_->setObjectName("over_training_status");
  status_->setWordWrap(true);
  progress_line->addWidget(progress_);
  progress_line->addWidget(status_, 1);
  layout->addLayout(progress_line);

  auto* splitter = new QSplitter(Qt::Vertical, this);
  heatmap_ = new widgets::InversionHeatmap(splitter);
  connect(heatmap_, &widgets::InversionHeatmap::cellClicked, this,
          [this](int row, int column) { showCell(row, column); });
  auto* lower = new QWidget(splitter);
  auto* lower_layout = new QVBoxLayout(lower);
  lower_layout->setContentsMargins(0, 0, 0, 0);
  auto* cell_line = new QHBoxLayout;
  cell_title_ = new QLabel(tr("Click a cell to see that checkpoint's recovered tokens at that layer."), lower);
  cell_title_->setObjectName("over_training_cell");
  input_box_ = new QComboBox(lower);
  input_box_->setObjectName("over_training_input");
  input_box_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  input_box_->setMinimumContentsLength(30);
  input_box_->hide();
  connect(input_box_, &QComboBox::activated, this, [this]() {
    if (row_ >= 0) showCell(row_, column_);
  });
  cell_line->addWidget(cell_title_, 1);
  cell_line->addWidget(input_box_);
  lower_layout->addLayout(cell_line);
  diff_ = new widgets::InversionDiffView(lower);
  diff_->setObjectName("over_training_diff");
  diff_->clear(tr("Click a heatmap cell."));
  lower_layout->addWidget(diff_, 1);
  splitter->addWidget(heatmap_);
  splitter->addWidget(lower);
  splitter->setStretchFactor(0, 3);
  splitter->setStretchFactor(1, 2);
  layout->addWidget(splitter, 1);
}

void OverTrainingView::setRunsDirectory(const QString& runs_directory) {
  runs_directory_ = runs_directory;
  refreshRuns();
}

void OverTrainingView::refreshRuns() {
  std::vector<std::pair<QString, QString>> items;  // (label, run folder)
  for (const CheckpointChoice& run : runsWithCheckpoints(runs_directory_)) {
    const QString dir = QString::fromStdString(RunPaths::ofCheckpoint(run.checkpoint_dir.toStdString()).root.string());
    items.emplace_back(tr("%1  (%2, latest %3)").arg(run.run, run.architecture, run.step), dir);
  }
  bool same = static_cast<int>(items.size()) == run_box_->count();
  for (int i = 0; same && i < run_box_->count(); ++i) {
    same = run_box_->itemText(i) == items[static_cast<size_t>(i)].first &&
           run_box_->itemData(i).toString() == items[static_cast<size_t>(i)].second;
  }
  if (same) return;  // an open list is not rebuilt under the pointer for nothing
  const QString current = runDirectory();
  {
    const QSignalBlocker quiet(run_box_);
    run_box_->clear();
    for (const auto& [label, dir] : items) run_box_->addItem(label, dir);
    const int index = run_box_->findData(current);
    if (index >= 0) run_box_->setCurrentIndex(index);
  }
  if (runDirectory() != current) Q_EMIT runChanged();
}

int OverTrainingView::runCount() const { return run_box_->count(); }

void OverTrainingView::showEvent(QShowEvent* event) {
  refreshRuns();
  QWidget::showEvent(event);
}

QString OverTrainingView::setRun(const QString& run_dir) {
  CheckpointChoice choice;
  const QString error = chooseCheckpoint(run_dir, &choice);
  if (!error.isEmpty()) return error;
  const QString dir = QString::fromStdString(RunPaths::ofCheckpoint(choice.checkpoint_dir.toStdString()).root.string());
  int index = run_box_->findData(dir);
  if (index < 0) {
    run_box_->addItem(tr("%1  (%2, latest %3)").arg(choice.run, choice.architecture, choice.step), dir);
    index = run_box_->count() - 1;
  }
  run_box_->setCurrentIndex(index);
  return {};
}

QString OverTrainingView::runDirectory() const { return run_box_->currentData().toString(); }
int OverTrainingView::evalDocuments() const { return inputs_->value(); }
void OverTrainingView::setEvalDocuments(int count) { inputs_->setValue(count); }

void OverTrainingView::setRunning(bool running) {
  start_->setEnabled(!running);
  run_box_->setEnabled(!running);
  folder_->setEnabled(!running);
  inputs_->setEnabled(!running);
  progress_->setVisible(running);
}

void OverTrainingView::setProgress(const QString& text, int permille) {
  progress_->setValue(permille);
  status_->setText(text);
}

void OverTrainingView::showMessage(const QString& text) {
  if (!text.isEmpty()) status_->setText(text);
}

void OverTrainingView::setGrid(const InversionOverTraining& grid, const std::vector<std::string>& texts, int top_k) {
  grid_ = grid;
  texts_ = texts;
  top_k_ = top_k;
  has_grid_ = true;
  row_ = column_ = -1;
  input_box_->clear();
  for (size_t i = 0; i < texts.size(); ++i)
    input_box_->addItem(tr("input %1: %2").arg(i + 1).arg(elidedOneLine(texts[i], 50)));
  input_box_->setVisible(texts.size() > 1);
  redrawHeatmap();
  diff_->clear(tr("Click a heatmap cell."));
  cell_title_->setText(tr("Click a cell to see that checkpoint's recovered tokens at that layer."));
}

void OverTrainingView::redrawHeatmap() {
  if (!has_grid_) return;
  heatmap_->setGrid(toGridView(grid_, metric_->currentIndex() == 1, top_k_));
  heatmap_->setSelectedCell(row_, column_);
}

bool OverTrainingView::showCell(int row, int column, int input) {
  if (!has_grid_ || row < 0 || column < 0 || row >= static_cast<int>(grid_.layers.size()) ||
      column >= static_cast<int>(grid_.results.size()))
    return false;
  if (input >= 0 && input < input_box_->count()) input_box_->setCurrentIndex(input);
  const int chosen = std::max(0, input_box_->currentIndex());
  const int64_t layer = grid_.layers[row];
  const std::vector<InversionResult>& column_results = grid_.results[column];
  int found = 0;
  for (const InversionResult& r : column_results) {
    if (r.layer != layer) continue;
    if (found++ != chosen) continue;
    row_ = row;
    column_ = column;
    heatmap_->setSelectedCell(row, column);
    const QString step = grid_.checkpoints[column].empty() ? tr("untrained") : tr("step %1").arg(grid_.steps[column]);
    widgets::InversionDiffRow diff_row = toDiffRow(r, step, top_k_);
    diff_->setRows({diff_row});
    cell_title_->setText(tr("<b>%1, layer %2</b>: Hamming top-%3 %4, exact %5 (%6 tokens)%7")
                             .arg(step)
                             .arg(layer)
                             .arg(top_k_)
                             .arg(r.hamming_top_k, 0, 'f', 3)
                             .arg(r.hamming_exact, 0, 'f', 3)
                             .arg(r.counted_positions)
                             .arg(r.cancelled ? tr(", cancelled") : QString()));
    return true;
  }
  return false;
}

QString OverTrainingView::cellTitle() const { return cell_title_->text(); }

}  // namespace mixerlab::gui
