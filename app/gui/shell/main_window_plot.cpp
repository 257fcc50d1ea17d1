// The main window's plotting: what the run list reports reaches the plot panels (a run's new
// points appended, a restarted series redrawn whole, only the runs ticked and passing the table's
// filter), the settings that vary between runs offered for grouping, and the panels' view kept
// across sessions (x axis, log scales, smoothing, which metric each panel shows). Run control
// (starting, watching, queueing runs) is RunControl's; "Fork from here" is in main_window_fork.cpp.
#include <algorithm>

#include <QSet>

#include "app/gui/common/app_settings.h"
#include "app/gui/project/project_document.h"
#include "app/gui/runs/run_list_model.h"
#include "app/gui/runs/run_table_filter.h"
#include "app/gui/shell/main_window.h"
#include "core/config/train_config.h"
#include "widgets/plots/loss_plot_widget.h"
#include "widgets/plots/plot_panels.h"

namespace mixerlab::gui {

void MainWindow::onSeriesChanged(const QString& run) {
  const widgets::LossSeries* series = runs_->series(run);
  if (series && plotShows(run)) panels_->setSeries(*series);
  regroupOnFirstReport(run);
}

// Live updates: the plots append what arrived instead of taking the whole series again.
void MainWindow::onPointsAppended(const widgets::LossSeries& points) {
  if (plotShows(points.run)) {
    if (panels_->hasRun(points.run)) {
      panels_->appendPoints(points);
    } else if (const widgets::LossSeries* series = runs_->series(points.run)) {
      panels_->setSeries(*series);
    }
  }
  regroupOnFirstReport(points.run);
}

// A run's settings are known once it is first reported (its run.json): the fields that differ
// are listed again then, not on every metrics update.
void MainWindow::regroupOnFirstReport(const QString& run) {
  if (!grouped_runs_.contains(run)) {
    grouped_runs_.insert(run);
    panels_->setGroupingFields(varyingSettings());
  }
}

QStringList MainWindow::varyingSettings() const {
  QStringList keys;
  const QStringList runs = runs_->runNames();
  for (const QString& key : runs_->availableHyperparameters()) {
    if (key == "name" || key == "train.seed") continue;   // seeds group by "Mean of seeds"
    if (isExecutionSetting(key.toStdString())) continue;  // how a run ran, not what it trains
    QSet<QString> values;
    for (const QString& run : runs) values.insert(runs_->settings(run).value(key).toString());
    if (values.size() > 1) keys << key;
  }
  return keys;
}

bool MainWindow::plotShows(const QString& run) const {
  return runs_->isOverlaid(run) && (!table_filter_ || table_filter_->acceptsRun(run));
}

void MainWindow::showOrHideInPlots(const QString& run) {
  const widgets::LossSeries* series = runs_->series(run);
  if (series && plotShows(run)) {
    panels_->setSeries(*series);
  } else {
    panels_->removeRun(run);
  }
}

void MainWindow::restorePlotView() {
  const QVariantMap view = AppSettings().plotView();
  if (view.isEmpty()) return;
  const QSignalBlocker quiet(plot_), quiet_panels(panels_);  // restoring is not a change to save
  panels_->setPanelMetrics(view.value("panels", QStringList{widgets::kLossMetric}).toStringList());
  plot_->setAxis(static_cast<widgets::LossAxis>(std::clamp(view.value("axis").toInt(), 0, 3)));
  plot_->setLogX(view.value("log_x").toBool());
  plot_->setLogY(view.value("log_y").toBool());
  widgets::Smoothing smoothing;
  smoothing.kind = static_cast<widgets::SmoothingKind>(std::clamp(view.value("smoothing").toInt(), 0, 2));
  smoothing.ema_weight = view.value("ema_weight", smoothing.ema_weight).toDouble();
  smoothing.window_points = view.value("window_points", smoothing.window_points).toInt();
  smoothing.centred = view.value("centred", smoothing.centred).toBool();
  plot_->setSmoothing(smoothing);
  panels_->setGrouping(view.value("grouping").toString());
}

void MainWindow::savePlotView() {
  const widgets::Smoothing s = plot_->smoothing();
  AppSettings().setPlotView({{"axis", static_cast<int>(plot_->axis())},
                             {"panels", panels_->panelMetrics()},
                             {"log_x", plot_->logX()},
                             {"log_y", plot_->logY()},
                             {"smoothing", static_cast<int>(s.kind)},
                             {"ema_weight", s.ema_weight},
                             {"window_points", s.window_points},
                             {"centred", s.centred},
                             {"grouping", panels_->grouping()}});
}

}  // namespace mixerlab::gui
