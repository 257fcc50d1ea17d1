// InversionLayerChart (see inversion_layer_chart.h).
#include "widgets/inversion/inversion_layer_chart.h"

#include <qcustomplot.h>
#include <QMouseEvent>
#include <cmath>
#include <limits>

#include "widgets/plots/plot_export_button.h"
#include "widgets/plots/plot_setup.h"
#include "widgets/plots/series_colours.h"

namespace mixerlab::widgets {

QColor InversionLayerChart::modelColour(int index) { return SeriesColours::paletteColour(index); }

InversionLayerChart::InversionLayerChart(QWidget* parent) : QWidget(parent), plot_(new QCustomPlot(this)) {
  fillWithPlot(this, plot_, "inversion_layer_plot", 280, 200);
  writers_ = plotWriters(plot_, "MixerLab inversion by layer", [this] { return graphsCsv(plot_); });
  placeExportButton(this, makeExportButton(this, tr("layer chart"), writers_));
  plot_->setMouseTracking(true);
  plot_->legend->setFont(font());
  // The legend is a row under the axes, never over the curves; it joins the
  // layout only while it lists a model (an empty one would cap the axes' width).
  plot_->axisRect()->insetLayout()->take(plot_->legend);
  plot_->legend->setVisible(false);
  plot_->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
  plot_->legend->setWrap(3);
  plot_->legend->setMargins(QMargins(4, 2, 4, 2));
  // The line-style key as a title row: the y label stays short enough for a low chart.
  plot_->plotLayout()->insertRow(0);
  key_ = new QCPTextElement(plot_, QString());
  plot_->plotLayout()->addElement(0, 0, key_);
  QSharedPointer<QCPAxisTickerFixed> ticker(new QCPAxisTickerFixed);
  ticker->setTickStep(1.0);
  ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
  plot_->xAxis->setTicker(ticker);
  plot_->xAxis->setLabel(tr("layer (0 = embedding)"));
  plot_->yAxis->setRange(-0.03, 1.03);
  marker_ = new QCPItemStraightLine(plot_);
  marker_->setPen(QPen(QColor(120, 120, 120), 1, Qt::DotLine));
  marker_->setVisible(false);
  readout_ = addHoverReadout(plot_, 0.99, 0.99, Qt::AlignRight | Qt::AlignBottom, 230, 150);
  connect(plot_, &QCustomPlot::mousePress, this, [this](QMouseEvent* e) {
    if (series_.isEmpty() || !plot_->axisRect()->rect().contains(e->pos())) return;
    const int layer = static_cast<int>(std::lround(plot_->xAxis->pixelToCoord(e->position().x())));
    for (const InversionLayerSeries& s : series_) {
      if (s.layers.contains(layer)) {
        setSelectedLayer(layer);
        Q_EMIT layerClicked(layer);
        return;
      }
    }
  });
  connect(plot_, &QCustomPlot::mouseMove, this, [this](QMouseEvent* e) {
    const QString text = plot_->axisRect()->rect().contains(e->pos()) ? readoutAt(e->position()) : QString();
    readout_->setVisible(!text.isEmpty());
    readout_->setText(text);
    plot_->replot(QCustomPlot::rpQueuedReplot);
  });
  setSeries({}, 5);
}

QString InversionLayerChart::valueAxisLabel() const { return plot_->yAxis->label(); }

void InversionLayerChart::setSeries(const QVector<InversionLayerSeries>& series, int top_k) {
  series_ = series;
  top_k_ = top_k;
  plot_->clearGraphs();
  int min_layer = 0, max_layer = 1;
  bool any = false;
  for (int i = 0; i < series_.size(); ++i) {
    const InversionLayerSeries& s = series_[i];
    QVector<double> xs;
    for (int layer : s.layers) xs.push_back(layer);
    const QColor colour = s.colour.isValid() ? s.colour : modelColour(i);
    QCPGraph* solid = plot_->addGraph();
    solid->setName(s.model);
    solid->setPen(QPen(colour, 2.0));
    solid->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, colour, 7));
    solid->setData(xs, s.top_k, true);
    QCPGraph* dashed = plot_->addGraph();
    dashed->setName(s.model + tr(" (exact)"));
    dashed->setPen(QPen(colour, 1.6, Qt::DashLine));
    dashed->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssSquare, colour, 6));
    dashed->setData(xs, s.exact, true);
    dashed->removeFromLegend();
    for (int layer : s.layers) {
      min_layer = any ? std::min(min_layer, layer) : layer;
      max_layer = any ? std::max(max_layer, layer) : layer;
      any = true;
    }
  }
  plot_->yAxis->setLabel(tr("Hamming distance"));
  key_->setText(tr("solid: top-%1 match, dashed: exact").arg(top_k_));
  plot_->xAxis->setRange(min_layer - 0.3, std::max(max_layer, min_layer + 1) + 0.3);
  // Rows: the key, the axes, then the legend while it lists a model.
  QCPLayoutGrid* grid = plot_->plotLayout();
  const bool in_grid = grid->rowCount() > 2 && grid->element(2, 0) == plot_->legend;
  if (!series_.isEmpty() && !in_grid) {
    grid->addElement(2, 0, plot_->legend);
    grid->setRowStretchFactor(2, 0.001);
  } else if (series_.isEmpty() && in_grid) {
    grid->take(plot_->legend);
    grid->simplify();
  }
  plot_->legend->setVisible(!series_.isEmpty());
  readout_->setVisible(false);
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

InversionLayerChart::~InversionLayerChart() {
  // A legend out of the layout is only a QObject child of the plot: delete it while the plot is whole.
  if (plot_->legend->layout() == nullptr) delete plot_->legend;
}

QRect InversionLayerChart::legendRect() const { return plot_->legend->outerRect(); }
QRect InversionLayerChart::axisRect() const { return plot_->axisRect()->rect(); }

void InversionLayerChart::setSelectedLayer(int layer) {
  selected_layer_ = layer;
  marker_->setVisible(layer >= 0);
  marker_->point1->setCoords(layer, 0);
  marker_->point2->setCoords(layer, 1);
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

QString InversionLayerChart::seriesName(int index) const { return plot_->graph(2 * index)->name(); }

double InversionLayerChart::value(int series, int layer, bool exact) const {
  if (series < 0 || 2 * series + 1 >= plot_->graphCount()) return std::numeric_limits<double>::quiet_NaN();
  const QCPGraph* graph = plot_->graph(2 * series + (exact ? 1 : 0));
  for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd(); ++it) {
    if (it->key == layer) return it->value;
  }
  return std::numeric_limits<double>::quiet_NaN();
}

QPointF InversionLayerChart::pixelOf(double layer, double hamming) const {
  return {plot_->xAxis->coordToPixel(layer), plot_->yAxis->coordToPixel(hamming)};
}

QString InversionLayerChart::readoutAt(const QPointF& pixel) const {
  double best = 14.0 * 14.0;  // within 14 px of a point
  QString text;
  for (int i = 0; i < series_.size(); ++i) {
    const InversionLayerSeries& s = series_[i];
    for (int j = 0; j < s.layers.size(); ++j) {
      for (double v : {s.top_k[j], s.exact[j]}) {
        const QPointF p = pixelOf(s.layers[j], v);
        const double d2 = (p.x() - pixel.x()) * (p.x() - pixel.x()) + (p.y() - pixel.y()) * (p.y() - pixel.y());
        if (d2 < best) {
          best = d2;
          text = tr("%1 \u00b7 layer %2: top-%3 %4, exact %5")
                     .arg(s.model)
                     .arg(s.layers[j])
                     .arg(top_k_)
                     .arg(s.top_k[j], 0, 'f', 3)
                     .arg(s.exact[j], 0, 'f', 3);
        }
      }
    }
  }
  return text;
}

void InversionLayerChart::replotNow() { plot_->replot(QCustomPlot::rpImmediateRefresh); }

QWidget* InversionLayerChart::plotArea() const { return plot_; }

}  // namespace mixerlab::widgets
