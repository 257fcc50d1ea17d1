// The main window's plot area: the panels' view kept across sessions (x axis, log scales,
// smoothing, which metric each panel shows). "Fork from here" is in main_window_fork.cpp.
#include <algorithm>

#include "app/gui/common/app_settings.h"
#include "app/gui/project/project_document.h"
#include "app/gui/runs/run_list_model.h"
#include "app/gui/shell/main_window.h"
#include "widgets/plots/loss_plot_widget.h"
#include "widgets/plots/plot_panels.h"

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
