// InversionLossPlot (see inversion_loss_plot.h).
#include "widgets/inversion/inversion_loss_plot.h"

#include <qcustomplot.h>
#include <algorithm>

#include "widgets/plots/plot_export_button.h"
#include "widgets/plots/plot_setup.h"

namespace mixerlab::widgets {

InversionLossPlot::InversionLossPlot(QWidget* parent) : QWidget(parent), plot_(new QCustomPlot(this)) {
  fillWithPlot(this, plot_, "inversion_loss_plot", 220, 200);
  plot_->yAxis->setScaleType(QCPAxis::stLogarithmic);
  plot_->yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
  plot_->yAxis->setNumberFormat("eb");
  plot_->yAxis->setNumberPrecision(0);
  plot_->xAxis->setLabel(tr("descent step"));
  plot_->yAxis->setLabel(tr("L1 / |target|"));
  plot_->plotLayout()->insertRow(0);
  title_ = new QCPTextElement(plot_, tr("descent"));
  plot_->plotLayout()->addElement(0, 0, title_);
  writers_ = plotWriters(
      plot_, "MixerLab inversion descent", [this] { return graphsCsv(plot_); }, FigureLegend::Shown);
  placeExportButton(this, makeExportButton(this, tr("descent plot"), writers_));
  setCurves({}, -1);
}

void InversionLossPlot::setCurves(const QVector<InversionLossCurve>& curves, int layer) {
  plot_->clearGraphs();
  double lo = 1e-3, hi = 1.0;
  bool any = false;
  int steps = 1;
  for (const InversionLossCurve& c : curves) {
    QVector<double> xs, ys;
    for (int i = 0; i < c.relative_l1.size(); ++i) {
      if (!(c.relative_l1[i] > 0)) continue;  // a log axis
      xs.push_back(i + 1);
      ys.push_back(c.relative_l1[i]);
      lo = any ? std::min(lo, ys.back()) : ys.back();
      hi = any ? std::max(hi, ys.back()) : ys.back();
      any = true;
    }
    steps = std::max(steps, static_cast<int>(c.relative_l1.size()));
    QCPGraph* g = plot_->addGraph();
    g->setName(c.model);
    g->setPen(QPen(c.colour, 1.6));
    g->setData(xs, ys, true);
  }
  plot_->xAxis->setRange(0, steps + 1);
  plot_->yAxis->setRange(lo / 1.5, hi * 1.5);
  title_->setText(layer >= 0 ? tr("descent at layer %1").arg(layer) : tr("descent"));
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

int InversionLossPlot::curveCount() const { return plot_->graphCount(); }

QWidget* InversionLossPlot::plotArea() const { return plot_; }

}  // namespace mixerlab::widgets
