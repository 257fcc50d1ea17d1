// Live loss plot (see loss_plot_widget.h).
#include "widgets/loss_plot_widget.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>
#include <qcustomplot.h>

namespace mixerlab::widgets {

namespace {
QColor runColour(int index) {
  static const QColor palette[] = {QColor(31, 119, 180), QColor(214, 39, 40), QColor(44, 160, 44),
                                   QColor(148, 103, 189), QColor(255, 127, 14), QColor(23, 190, 207)};
  return palette[index % 6];
}
}  // namespace

LossPlotWidget::LossPlotWidget(QWidget* parent) : QWidget(parent), plot_(new QCustomPlot(this)) {
  axis_box_ = new QComboBox(this);
  axis_box_->addItems({"step", "tokens", "wall-clock (s)"});
  log_y_ = new QCheckBox("log y", this);
  auto* controls = new QHBoxLayout;
  controls->addWidget(new QLabel("x axis:", this));
  controls->addWidget(axis_box_);
  controls->addWidget(log_y_);
  controls->addStretch();
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(controls);
  layout->addWidget(plot_, 1);
  plot_->legend->setVisible(true);
  plot_->yAxis->setLabel("cross-entropy loss");
  plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  plot_->setMinimumSize(480, 320);
  connect(axis_box_, &QComboBox::currentIndexChanged, this, [this](int i) { setAxis(static_cast<LossAxis>(i)); });
  connect(log_y_, &QCheckBox::toggled, this, [this](bool on) {
    plot_->yAxis->setScaleType(on ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
    if (on) {
      plot_->yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    } else {
      plot_->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    }
    redraw();
  });
  redraw();
}

void LossPlotWidget::setSeries(const LossSeries& series) {
  series_[series.run] = series;
  redraw();
}

void LossPlotWidget::removeRun(const QString& run) {
  series_.remove(run);
  redraw();
}

void LossPlotWidget::setAxis(LossAxis axis) {
  axis_ = axis;
  if (axis_box_->currentIndex() != static_cast<int>(axis)) axis_box_->setCurrentIndex(static_cast<int>(axis));
  redraw();
}

int LossPlotWidget::graphCount() const { return plot_->graphCount(); }

int LossPlotWidget::pointCount(const QString& run, bool eval) const {
  auto it = series_.find(run);
  if (it == series_.end()) return 0;
  return eval ? it->eval.size() : it->train.size();
}

bool LossPlotWidget::saveImage(const QString& path) {
  if (path.endsWith(".pdf", Qt::CaseInsensitive)) return plot_->savePdf(path);
  return plot_->savePng(path, 0, 0, 2.0);
}

void LossPlotWidget::redraw() {
  plot_->clearGraphs();
  int index = 0;
  for (auto it = series_.cbegin(); it != series_.cend(); ++it, ++index) {
    const QColor colour = runColour(index);
    auto add = [&](const QVector<LossPoint>& points, bool eval) {
      if (points.isEmpty()) return;
      QCPGraph* g = plot_->addGraph();
      QVector<double> xs, ys;
      for (const auto& p : points) {
        xs.push_back(p.x(axis_));
        ys.push_back(p.loss);
      }
      g->setData(xs, ys, /*alreadySorted=*/true);
      g->setName(it.key() + (eval ? " eval" : " train"));
      QPen pen(colour, eval ? 2.0 : 1.4);
      if (eval) {
        pen.setStyle(Qt::DashLine);
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 5));
      }
      g->setPen(pen);
    };
    add(it->train, false);
    add(it->eval, true);
  }
  static const char* labels[] = {"step", "tokens", "wall-clock (s)"};
  plot_->xAxis->setLabel(labels[static_cast<int>(axis_)]);
  plot_->rescaleAxes();
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace mixerlab::widgets
