// The main window's plot area: the panels' view kept across sessions (x axis, log scales,
// smoothing, which metric each panel shows) and "fork from here" on a point of a curve.
#include <algorithm>

#include <QFileInfo>
#include <QInputDialog>
#include <QLineEdit>
#include <QStatusBar>

#include "app/gui/launch/launch_watcher.h"
#include "app/gui/launch/run_launcher.h"
#include "app/gui/project/project_document.h"
#include "app/gui/runs/fork_point.h"
#include "app/gui/runs/run_list_model.h"
#include "app/gui/shell/app_settings.h"
#include "app/gui/shell/main_window.h"
#include "core/runs/run_info.h"
#include "widgets/loss_plot_widget.h"
#include "widgets/plot_panels.h"

namespace mixerlab::gui {

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
                             {"centred", s.centred}});
}

void MainWindow::onForkFromPlot(const QString& run, double step) {
  bool ok = false;
  const QString run_id = QInputDialog::getText(
      this, "Fork run", QString("Fork %1 from step %2 into run directory:").arg(run).arg(qint64(step)),
      QLineEdit::Normal, run + "-from-" + QString::number(qint64(step)), &ok);
  if (ok && !run_id.isEmpty()) forkFromStep(run, step, run_id);
}

QString MainWindow::forkFromStep(const QString& run, double step, const QString& run_id) {
  QString error;
  const QString checkpoint = checkpointAtOrBefore(runsDirectory() + "/" + run, step, &error);
  if (checkpoint.isEmpty()) {
    statusBar()->showMessage(error, 10000);
    return error;
  }
  // A fork of a fork trains as the project run it came from.
  QString project_run = run;
  if (!document_->runNames().contains(run)) {
    if (const auto info = tryReadRunInfo((runsDirectory() + "/" + run).toStdString())) {
      project_run = QString::fromStdString(info->run.name);
    }
  }
  const QString project_file = document_->filePath();
  LaunchedProcess launched;
  error = target_->start(trainArguments(project_file, project_run, false, run_id, checkpoint),
                         QFileInfo(project_file).absolutePath(), &launched);
  if (error.isEmpty()) {
    launch_watcher_->watch(run_id, runsDirectory() + "/" + run_id, launched);
    statusBar()->showMessage("forking " + run_id + " from " + checkpoint, 8000);
  } else {
    onLaunchFailed(run_id, error);
  }
  return error;
}

}  // namespace mixerlab::gui
