// The descent's loss curves of representation inversion for one layer (QCustomPlot): per model,
// the summed L1 distance between the layer's output for the recovered and the true embedding at
// each step, divided by the summed |true output| so that models of different widths share one
// log axis. Shows whether the descent had settled by its last step. Plain data in.
#pragma once
#include <QColor>
#include <QString>
#include <QVector>
#include <QWidget>

class QCustomPlot;
class QCPTextElement;

#include "widgets/plots/plot_export_button.h"

namespace mixerlab::widgets {

struct InversionLossCurve {
  QString model;
  QColor colour;
  QVector<double> relative_l1;  // per step: L1 / |target|
};

class InversionLossPlot : public QWidget {
  Q_OBJECT
 public:
  // What its Export button writes: SVG and PNG of the chart, and its data as CSV.
  const PlotWriters& exportWriters() const { return writers_; }
  explicit InversionLossPlot(QWidget* parent = nullptr);
  void setCurves(const QVector<InversionLossCurve>& curves, int layer);
  int curveCount() const;
  QWidget* plotArea() const;  // the QCustomPlot, as a widget to click on (tests, screenshots)

 private:
  QCustomPlot* plot_;
  PlotWriters writers_;
  QCPTextElement* title_ = nullptr;
};

}  // namespace mixerlab::widgets
