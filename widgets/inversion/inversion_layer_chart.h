// The Hamming distance of representation inversion against layer (QCustomPlot): one colour per
// model, its top-k distance as a solid line and its exact-match distance dashed, a legend naming
// the models, a marker on the chosen layer and a hover readout. Clicking the plot chooses the
// nearest layer (the panel then shows that layer's token diff). Plain data in.
#pragma once
#include <QColor>
#include <QPointF>
#include <QRect>
#include <QString>
#include <QVector>
#include <QWidget>

class QCustomPlot;
class QCPItemStraightLine;
class QCPItemText;
class QCPTextElement;

#include "widgets/plots/plot_export_button.h"

namespace mixerlab::widgets {

struct InversionLayerSeries {
  QString model;
  QVector<int> layers;           // ascending
  QVector<double> top_k, exact;  // normalised Hamming per layer (0 = every token recovered)
  QColor colour;                 // invalid: modelColour(series index)
};

class InversionLayerChart : public QWidget {
  Q_OBJECT
 public:
  // What its Export button writes: SVG and PNG of the chart, and its data as CSV.
  const PlotWriters& exportWriters() const { return writers_; }
  explicit InversionLayerChart(QWidget* parent = nullptr);
  ~InversionLayerChart() override;

  void setSeries(const QVector<InversionLayerSeries>& series, int top_k);
  void setSelectedLayer(int layer);  // -1: none
  int selectedLayer() const { return selected_layer_; }

  int seriesCount() const { return static_cast<int>(series_.size()); }
  QString seriesName(int index) const;  // the legend's name of the model's solid line
  // The drawn value of a model at a layer (NaN when not drawn), read back from the plot's graphs.
  double value(int series, int layer, bool exact) const;
  QPointF pixelOf(double layer, double hamming) const;  // plot widget pixels
  QString readoutAt(const QPointF& pixel) const;        // "model · layer k: top-5 h, exact h"
  QWidget* plotArea() const;                            // the QCustomPlot, as a widget to click on (tests, screenshots)
  void replotNow();
  QString valueAxisLabel() const;        // the y axis's label as drawn
  QRect legendRect() const;              // where the legend is drawn, plot pixels (for tests)
  QRect axisRect() const;                // where the curves are drawn, plot pixels
  static QColor modelColour(int index);  // the same colour for a model in every inversion view

 Q_SIGNALS:
  void layerClicked(int layer);

 private:
  QCustomPlot* plot_;
  PlotWriters writers_;
  QCPTextElement* key_ = nullptr;
  QCPItemStraightLine* marker_ = nullptr;
  QCPItemText* readout_ = nullptr;
  QVector<InversionLayerSeries> series_;
  int top_k_ = 5;
  int selected_layer_ = -1;
};

}  // namespace mixerlab::widgets
