// Representation inversion over training as a heatmap (QCPColorMap): layers as rows (the embedding
// at the bottom), the run's checkpoints as columns in training order with the untrained model
// first, the mean Hamming distance as colour on a fixed 0..1 scale with a colour bar, and each
// cell's value written in it while the grid is small. Clicking a cell selects it and reports it
// (the panel then shows that checkpoint and layer's token diff). Columns not inverted yet (a
// cancelled run) are left blank. Plain data in.
#pragma once
#include <QPoint>
#include <QString>
#include <QVector>
#include <QWidget>

class QCustomPlot;
class QCPColorMap;
class QCPColorScale;
class QCPItemRect;

#include "widgets/plots/plot_export_button.h"

namespace mixerlab::widgets {

struct InversionGridView {
  QVector<int> layers;              // one per row, bottom to top
  QVector<QString> columns;         // "untrained", "50", "100", ...
  QVector<QVector<double>> values;  // [row][column]; NaN = not inverted
  QString metric;                   // e.g. "mean Hamming, top-5"
};

class InversionHeatmap : public QWidget {
  Q_OBJECT
 public:
  // What its Export button writes: SVG and PNG of the chart, and its data as CSV.
  const PlotWriters& exportWriters() const { return writers_; }
  explicit InversionHeatmap(QWidget* parent = nullptr);

  void setGrid(const InversionGridView& grid);
  void setSelectedCell(int row, int column);  // -1, -1: none
  int rowCount() const { return static_cast<int>(grid_.layers.size()); }
  int columnCount() const { return static_cast<int>(grid_.columns.size()); }
  double value(int row, int column) const;       // read back from the colour map's data
  QString columnLabel(int column) const;         // the tick label drawn under the column
  QPoint cellCenter(int row, int column) const;  // plot widget pixels
  QWidget* plotArea() const;                     // the QCustomPlot, as a widget to click on (tests, screenshots)
  void replotNow();
  // Every cell as "layer,checkpoint,<metric>" (blank for a cell not inverted): the CSV export.
  QString gridCsv() const;

 Q_SIGNALS:
  void cellClicked(int row, int column);

 private:
  QCustomPlot* plot_;
  PlotWriters writers_;
  QCPColorMap* map_ = nullptr;
  QCPColorScale* scale_ = nullptr;
  QCPItemRect* selection_ = nullptr;
  InversionGridView grid_;
};

}  // namespace mixerlab::widgets
