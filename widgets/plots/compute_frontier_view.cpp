// ComputeFrontierView (see compute_frontier_view.h).
#include "widgets/plots/compute_frontier_view.h"

#include <qcustomplot.h>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <cmath>

#include "widgets/plots/plot_export_button.h"

namespace mixerlab::widgets {

namespace {
QString withError(double value, double error) {
  if (!std::isfinite(error)) return QString::number(value, 'g', 4);
  return QString("%1 ± %2").arg(value, 0, 'g', 4).arg(error, 0, 'g', 2);
}
}  // namespace

ComputeFrontierView::ComputeFrontierView(QWidget* parent)
    : QWidget(parent), plot_(new QCustomPlot), grouping_(new QComboBox), fits_(new QTableWidget), note_(new QLabel) {
  plot_->setObjectName("compute_frontier_plot");
  plot_->setMinimumSize(280, 180);
  plot_->xAxis->setScaleType(QCPAxis::stLogarithmic);
  plot_->xAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
  plot_->xAxis->setNumberFormat("eb");
  plot_->xAxis->setNumberPrecision(1);  // 1.3·10^13 stays apart from 10^13
  plot_->xAxis->setLabel(tr("training FLOPs (log)"));
  plot_->yAxis->setLabel(tr("eval loss"));
  plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  grouping_->addItems({tr("architecture"), tr("architecture and width"), tr("everything but the seed")});
  auto* refresh = new QPushButton(tr("Refresh"));
  note_->setWordWrap(true);
  note_->setText(
      tr("Runs with the plot's checkbox on. Points: every eval; solid: Pareto frontier; dashed: "
         "fit loss = a·C^-b + c."));
  auto* controls = new QHBoxLayout;
  controls->addWidget(new QLabel(tr("Group by:")));
  controls->addWidget(grouping_);
  controls->addWidget(refresh);
  controls->addWidget(note_, 1);
  writers_ = plotWriters(
      plot_, "MixerLab scaling", [this] { return graphsCsv(plot_); }, FigureLegend::Shown);
  controls->addWidget(makeExportButton(this, tr("scaling plot"), writers_));
  fits_->setColumnCount(7);
  fits_->setHorizontalHeaderLabels(
      {tr("group"), tr("runs"), tr("frontier points"), tr("a"), tr("b"), tr("c"), tr("rmse")});
  fits_->horizontalHeader()->setStretchLastSection(true);
  fits_->verticalHeader()->setVisible(false);
  fits_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  auto* splitter = new QSplitter(Qt::Vertical);
  splitter->addWidget(plot_);
  splitter->addWidget(fits_);
  splitter->setStretchFactor(0, 3);
  splitter->setStretchFactor(1, 1);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(controls);
  layout->addWidget(splitter, 1);
  connect(grouping_, &QComboBox::currentIndexChanged, this, [this] { Q_EMIT groupingChanged(); });
  connect(refresh, &QPushButton::clicked, this, [this] { Q_EMIT refreshRequested(); });
}

FrontierGrouping ComputeFrontierView::grouping() const {
  return static_cast<FrontierGrouping>(grouping_->currentIndex());
}
int ComputeFrontierView::drawnGraphCount() const { return plot_->graphCount(); }
QRect ComputeFrontierView::axisRect() const { return plot_->axisRect()->rect(); }

QString ComputeFrontierView::fitText(int row) const {
  QStringList cells;
  for (int c = 0; c < fits_->columnCount(); ++c)
    cells << (fits_->item(row, c) ? fits_->item(row, c)->text() : QString());
  return cells.join(" | ");
}

QColor ComputeFrontierView::groupColour(int row) const { return group_colours_.value(row); }

void ComputeFrontierView::setGroups(const QVector<FrontierGroup>& groups) {
  plot_->clearGraphs();
  group_colours_.clear();
  fits_->setRowCount(static_cast<int>(groups.size()));
  double x_lo = INFINITY, x_hi = 0, y_lo = INFINITY, y_hi = -INFINITY;
  for (int i = 0; i < groups.size(); ++i) {
    const FrontierGroup& g = groups[i];
    const QColor colour = colours_->colour(g.colour_key.isEmpty() ? g.label : g.colour_key);
    group_colours_ << colour;
    QVector<double> xs, ys;
    for (const QPointF& p : g.points) {
      if (!(p.x() > 0)) continue;
      xs << p.x();
      ys << p.y();
      x_lo = std::min(x_lo, p.x());
      x_hi = std::max(x_hi, p.x());
      y_lo = std::min(y_lo, p.y());
      y_hi = std::max(y_hi, p.y());
    }
    QCPGraph* points = plot_->addGraph();
    points->setLineStyle(QCPGraph::lsNone);
    QColor faint = colour;
    faint.setAlpha(90);
    points->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, faint, 5));
    points->setData(xs, ys);
    points->setName(g.label + tr(" evals"));
    QVector<double> fx, fy;
    for (const QPointF& p : g.frontier) {
      fx << p.x();
      fy << p.y();
    }
    QCPGraph* frontier = plot_->addGraph();
    frontier->setPen(QPen(colour, 2.2));
    frontier->setLineStyle(QCPGraph::lsStepLeft);
    frontier->setData(fx, fy, true);
    frontier->setName(g.label + tr(" frontier"));
    if (g.fitted && fx.size() >= 2) {
      QVector<double> cx, cy;
      const double lo = std::log10(fx.front()), hi = std::log10(fx.back());
      for (int k = 0; k <= 60; ++k) {
        const double x = std::pow(10.0, lo + (hi - lo) * k / 60.0);
        cx << x;
        cy << g.a * std::pow(x, -g.b) + g.c;
      }
      QCPGraph* fit = plot_->addGraph();
      fit->setPen(QPen(colour, 1.6, Qt::DashLine));
      fit->setData(cx, cy, true);
      fit->setName(g.label + tr(" fit"));
    }
    auto cell = [&](int column, const QString& text) {
      auto* item = new QTableWidgetItem(text);
      if (column == 0) item->setForeground(colour);
      fits_->setItem(i, column, item);
    };
    cell(0, g.label);
    cell(1, QString::number(g.runs));
    cell(2, QString::number(g.frontier.size()));
    if (g.fitted) {
      cell(3, withError(g.a, g.a_std));
      cell(4, withError(g.b, g.b_std));
      cell(5, withError(g.c, g.c_std));
      cell(6, QString::number(g.rmse, 'g', 3));
    } else {
      cell(3, g.problem);
      for (int c = 4; c < 7; ++c) cell(c, QString());
    }
  }
  fits_->resizeColumnsToContents();
  if (x_hi > 0) {
    plot_->xAxis->setRange(x_lo / 1.5, x_hi * 1.5);
    const double pad = std::max(1e-3, (y_hi - y_lo) * 0.06);
    plot_->yAxis->setRange(y_lo - pad, y_hi + pad);
  }
  plot_->replot();
}

}  // namespace mixerlab::widgets
