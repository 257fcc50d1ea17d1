// The inversion inspector's results (see inversion_panel.h): each model's report as it finishes,
// the per-layer chart, the chosen layer's loss curves and token diff, the over-training grid, and
// saving everything as JSON.
#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <set>

#include "app/gui/inversion/inversion_panel.h"
#include "app/gui/inversion/inversion_view_bridge.h"
#include "app/gui/inversion/over_training_view.h"
#include "widgets/inversion/inversion_diff_view.h"
#include "widgets/inversion/inversion_layer_chart.h"
#include "widgets/inversion/inversion_loss_plot.h"
#include "widgets/inversion/inversion_model_row.h"

namespace mixerlab::gui {

void InversionPanel::onFinished(int model, const std::vector<InversionResult>& results) {
  if (model >= modelCount()) return;
  Model& m = models_[model];
  m.results = results;
  double elapsed_ms = 0;
  const InversionResult* stopped = nullptr;
  for (const InversionResult& r : results) {
    elapsed_ms += r.elapsed_ms;
    if (r.cancelled && stopped == nullptr) stopped = &r;
  }
  if (stopped != nullptr) {
    m.state = ModelState::kCancelled;
    m.row->setStatus(tr("cancelled at layer %1, step %2 of %3")
                         .arg(stopped->layer)
                         .arg(stopped->loss_curve.size())
                         .arg(run_settings_.iterations));
  } else {
    m.state = ModelState::kDone;
    const InversionResult& last = results.back();
    m.row->setStatus(tr("done: %1 layer(s) in %2 s \u00b7 layer %3: top-%4 %5, exact %6")
                         .arg(results.size() / std::max<size_t>(1, run_texts_.size()))
                         .arg(elapsed_ms / 1000.0, 0, 'f', 1)
                         .arg(last.layer)
                         .arg(run_settings_.top_k)
                         .arg(last.hamming_top_k, 0, 'f', 3)
                         .arg(last.hamming_exact, 0, 'f', 3));
  }
  showResults();
}

void InversionPanel::onFailed(int model, const QString& error) {
  if (model >= modelCount()) return;
  Model& m = models_[model];
  m.state = ModelState::kFailed;
  m.error = error;
  m.row->setStatus(QString("<span style='color:#b00020'>%1</span>").arg(tr("failed: %1").arg(error).toHtmlEscaped()));
}

void InversionPanel::onSkipped(int model) {
  if (model >= modelCount()) return;
  Model& m = models_[model];
  m.state = ModelState::kSkipped;
  m.error = "cancelled before it started";
  m.row->setStatus(tr("cancelled before it started"));
}

void InversionPanel::showResults() {
  QVector<widgets::InversionLayerSeries> series;
  for (int i = 0; i < modelCount(); ++i) {
    if (models_[i].results.empty()) continue;
    widgets::InversionLayerSeries s = toLayerSeries(models_[i].results, modelLabel(i));
    s.colour = widgets::InversionLayerChart::modelColour(i);
    series.push_back(s);
  }
  chart_->setSeries(series, static_cast<int>(run_settings_.top_k));
  refreshLayerBox();
  showLayer(shown_layer_);
}

void InversionPanel::refreshLayerBox() {
  std::set<int> layers;
  for (const Model& m : models_) {
    for (const InversionResult& r : m.results) layers.insert(static_cast<int>(r.layer));
  }
  const QSignalBlocker block(layer_box_);
  layer_box_->clear();
  for (int layer : layers) layer_box_->addItem(layer == 0 ? tr("0 (embedding)") : QString::number(layer), layer);
  // Keep the layer shown while it exists; else the deepest (where the models differ most).
  if (!layers.empty() && layers.count(shown_layer_) == 0) shown_layer_ = *layers.rbegin();
  if (layers.empty()) shown_layer_ = -1;
}

void InversionPanel::showLayer(int layer) {
  shown_layer_ = layer;
  const int index = layer_box_->findData(layer);
  if (index >= 0) layer_box_->setCurrentIndex(index);
  chart_->setSelectedLayer(layer);
  QVector<widgets::InversionDiffRow> rows;
  QVector<QColor> colours;
  QVector<widgets::InversionLossCurve> curves;
  QStringList summary;
  for (int i = 0; i < modelCount(); ++i) {
    const QColor colour = widgets::InversionLayerChart::modelColour(i);
    for (const InversionResult& r : models_[i].results) {
      if (r.layer != layer) continue;
      rows.push_back(toDiffRow(r, modelLabel(i), static_cast<int>(run_settings_.top_k)));
      colours.push_back(colour);
      summary.push_back(tr("<span style='color:%1'>\u25a0</span> %2: top-%3 %4, exact %5 of %6 tokens%7")
                            .arg(colour.name(), modelLabel(i).toHtmlEscaped())
                            .arg(run_settings_.top_k)
                            .arg(r.hamming_top_k, 0, 'f', 3)
                            .arg(r.hamming_exact, 0, 'f', 3)
                            .arg(r.counted_positions)
                            .arg(r.cancelled ? tr(" (cancelled)") : QString()));
      break;  // the first input (the inspector inverts one)
    }
    if (!models_[i].results.empty()) curves.push_back(toLossCurve(models_[i].results, layer, modelLabel(i), colour));
  }
  if (rows.isEmpty()) {
    diff_->clear(isRunning() ? tr("Inverting...") : QString());
  } else {
    diff_->setRows(rows, colours);
  }
  loss_plot_->setCurves(curves, layer);
  layer_summary_->setText(summary.join(" &nbsp; "));
}

QString InversionPanel::layerSummary() const { return layer_summary_->text(); }

void InversionPanel::onOverTrainingFinished(const InversionOverTraining& grid, const std::vector<std::string>& texts) {
  over_training_->setGrid(grid, texts, static_cast<int>(over_training_settings_ ? over_training_settings_->top_k : 5));
  const QString text = tr("%1: %2 layer(s) x %3 column(s) (untrained first), %4 input(s)%5")
                           .arg(over_training_run_)
                           .arg(grid.layers.size())
                           .arg(grid.results.size())
                           .arg(texts.size())
                           .arg(grid.cancelled ? tr(", cancelled") : QString());
  over_training_->setProgress(text, 1000);
  showStatus(tr("over training: ") + text);
}

void InversionPanel::onOverTrainingFailed(const QString& error) {
  over_training_->setProgress(tr("failed: %1").arg(error), 0);
  showStatus(tr("over training failed: %1").arg(error));
}

InversionReport InversionPanel::report() const {
  InversionReport out;
  out.texts = run_texts_;
  out.settings = run_settings_;
  for (const Model& m : models_) {
    InversionReportModel model;
    model.label = m.choice.label().toStdString();
    model.checkpoint = m.choice.checkpoint.checkpoint_dir.toStdString();
    model.untrained = m.choice.untrained;
    model.architecture = m.choice.checkpoint.architecture.toStdString();
    model.layers = m.layers;
    model.results = m.results;
    model.error = m.error.toStdString();
    out.models.push_back(model);
  }
  if (over_training_->hasGrid()) {
    out.over_training_settings = over_training_settings_;
    out.over_training =
        OverTrainingReport{over_training_run_.toStdString(), over_training_->texts(), over_training_->grid()};
  }
  return out;
}

QString InversionPanel::saveResults(const QString& json_path) {
  if (!has_results_ && !over_training_->hasGrid()) return tr("invert first: there are no results to save");
  try {
    saveInversionReport(report(), json_path.toStdString());
  } catch (const std::exception& e) {
    return QString::fromStdString(e.what());
  }
  showStatus(tr("saved %1").arg(json_path));
  return {};
}

void InversionPanel::onSave() {
  const QString start = runs_directory_.isEmpty() ? QString() : QFileInfo(runs_directory_).absolutePath();
  const QString file =
      QFileDialog::getSaveFileName(this, tr("Save inversion results"), start + "/inversion.json", tr("JSON (*.json)"));
  if (file.isEmpty()) return;
  const QString error = saveResults(file.endsWith(".json") ? file : file + ".json");
  if (!error.isEmpty()) showStatus(error);
}

}  // namespace mixerlab::gui
