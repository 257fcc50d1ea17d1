// InversionHeatmap (see inversion_heatmap.h).
#include "widgets/inversion/inversion_heatmap.h"

#include <qcustomplot.h>
#include <QMouseEvent>
#include <cmath>
#include <limits>

#include "widgets/plots/plot_export_button.h"
#include "widgets/plots/plot_setup.h"

namespace mixerlab::widgets {

namespace {
constexpr int kMaxLabelledCells = 160;  // above this the values are left to the colour bar and hover
}

InversionHeatmap::InversionHeatmap(QWidget* parent) : QWidget(parent), plot_(new QCustomPlot(this)) {
  fillWithPlot(this, plot_, "inversion_heatmap_plot", 320, 200);
  map_ = new QCPColorMap(plot_->xAxis, plot_->yAxis);
  scale_ = new QCPColorScale(plot_);
  plot_->plotLayout()->addElement(0, 1, scale_);
  scale_->setType(QCPAxis::atRight);
  map_->setColorScale(scale_);
  QCPColorGradient gradient(QCPColorGradient::gpThermal);  // black (kept) -> white (lost)
  gradient.setNanHandling(QCPColorGradient::nhTransparent);
  map_->setGradient(gradient);
  map_->setDataRange(QCPRange(0, 1));
  map_->setInterpolate(false);
  auto* margins = new QCPMarginGroup(plot_);
  plot_->axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
  scale_->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
  plot_->xAxis->setLabel(tr("training step"));
  plot_->yAxis->setLabel(tr("layer (0 = embedding)"));
  connect(plot_, &QCustomPlot::mousePress, this, [this](QMouseEvent* e) {
    if (rowCount() == 0 || !plot_->axisRect()->rect().contains(e->pos())) return;
    const int column = static_cast<int>(std::lround(plot_->xAxis->pixelToCoord(e->position().x())));
    const int row = static_cast<int>(std::lround(plot_->yAxis->pixelToCoord(e->position().y())));
    if (row < 0 || row >= rowCount() || column < 0 || column >= columnCount()) return;
    setSelectedCell(row, column);
    Q_EMIT cellClicked(row, column);
  });
  writers_ = plotWriters(plot_, "MixerLab inversion over training", [this] { return gridCsv(); });
  placeExportButton(this, makeExportButton(this, tr("heatmap"), writers_));
  setGrid({});
}

QString InversionHeatmap::gridCsv() const {
  // One row per cell, by the labels drawn (the checkpoint's step, not the column index).
  QString out =
      "layer,checkpoint," + csvField(grid_.metric.isEmpty() ? tr("mean Hamming distance") : grid_.metric) + "\n";
  for (int r = 0; r < rowCount(); ++r) {
    for (int c = 0; c < columnCount() && c < grid_.values[r].size(); ++c) {
      const double v = grid_.values[r][c];
      out += QString::number(grid_.layers[r]) + ',' + csvField(grid_.columns[c]) + ',' +
             (std::isfinite(v) ? QString::number(v, 'g', 10) : QString()) + "\n";
    }
  }
  return out;
}

void InversionHeatmap::setGrid(const InversionGridView& grid) {
  grid_ = grid;
  const int rows = std::max(1, rowCount()), columns = std::max(1, columnCount());
  map_->data()->setSize(columns, rows);
  map_->data()->setRange(QCPRange(0, columns - 1), QCPRange(0, rows - 1));
  map_->data()->fill(std::numeric_limits<double>::quiet_NaN());
  plot_->clearItems();  // the value labels (and the selection, made again below)
  selection_ = new QCPItemRect(plot_);
  selection_->setPen(QPen(QColor(0, 160, 255), 3));
  selection_->setBrush(Qt::NoBrush);
  selection_->setVisible(false);
  const bool labelled = rowCount() * columnCount() <= kMaxLabelledCells;
  for (int r = 0; r < rowCount(); ++r) {
    for (int c = 0; c < columnCount() && c < grid_.values[r].size(); ++c) {
      const double v = grid_.values[r][c];
      map_->data()->setCell(c, r, v);
      if (!labelled || std::isnan(v)) continue;
      auto* text = new QCPItemText(plot_);
      text->position->setCoords(c, r);
      text->setText(QString::number(v, 'f', 2));
      text->setColor(v > 0.6 ? Qt::black : Qt::white);  // readable on the thermal scale
      text->setClipToAxisRect(true);
    }
  }
  QSharedPointer<QCPAxisTickerText> x_ticks(new QCPAxisTickerText);
  for (int c = 0; c < columnCount(); ++c) x_ticks->addTick(c, grid_.columns[c]);
  plot_->xAxis->setTicker(x_ticks);
  QSharedPointer<QCPAxisTickerText> y_ticks(new QCPAxisTickerText);
  for (int r = 0; r < rowCount(); ++r) y_ticks->addTick(r, QString::number(grid_.layers[r]));
  plot_->yAxis->setTicker(y_ticks);
  plot_->xAxis->setRange(-0.5, columns - 0.5);
  plot_->yAxis->setRange(-0.5, rows - 0.5);
  scale_->axis()->setLabel(grid_.metric.isEmpty() ? tr("mean Hamming distance") : grid_.metric);
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

void InversionHeatmap::setSelectedCell(int row, int column) {
  const bool shown = row >= 0 && column >= 0 && row < rowCount() && column < columnCount();
  selection_->setVisible(shown);
  if (shown) {
    selection_->topLeft->setCoords(column - 0.5, row + 0.5);
    selection_->bottomRight->setCoords(column + 0.5, row - 0.5);
  }
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

double InversionHeatmap::value(int row, int column) const { return map_->data()->cell(column, row); }

QString InversionHeatmap::columnLabel(int column) const {
  auto ticker = plot_->xAxis->ticker().dynamicCast<QCPAxisTickerText>();
  return ticker ? ticker->ticks().value(column) : QString();
}

QPoint InversionHeatmap::cellCenter(int row, int column) const {
  return QPoint(static_cast<int>(plot_->xAxis->coordToPixel(column)),
                static_cast<int>(plot_->yAxis->coordToPixel(row)));
}

void InversionHeatmap::replotNow() { plot_->replot(QCustomPlot::rpImmediateRefresh); }

QWidget* InversionHeatmap::plotArea() const { return plot_; }

}  // namespace mixerlab::widgets
