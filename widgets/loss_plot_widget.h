// Live loss plot (QCustomPlot): train loss as solid lines and eval loss as dashed lines with
// markers, one colour per run, x axis by step / tokens / wall-clock, optional log y, legend.
#pragma once
#include <QMap>
#include <QWidget>

#include "widgets/loss_series.h"

class QCustomPlot;
class QComboBox;
class QCheckBox;

namespace mixerlab::widgets {

class LossPlotWidget : public QWidget {
  Q_OBJECT
 public:
  explicit LossPlotWidget(QWidget* parent = nullptr);
  void setSeries(const LossSeries& series);  // adds or replaces the run's curves
  void removeRun(const QString& run);
  void setAxis(LossAxis axis);
  LossAxis axis() const { return axis_; }
  int graphCount() const;
  int pointCount(const QString& run, bool eval) const;
  bool saveImage(const QString& path);  // PNG or PDF by extension

 private:
  void redraw();
  QCustomPlot* plot_;
  QComboBox* axis_box_;
  QCheckBox* log_y_;
  QMap<QString, LossSeries> series_;
  LossAxis axis_ = LossAxis::Step;
};

}  // namespace mixerlab::widgets
