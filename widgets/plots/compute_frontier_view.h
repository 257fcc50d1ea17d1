// The Scaling tab: eval loss against training compute for groups of runs (by architecture, by
// architecture and width, or by everything but the seed), each group's Pareto frontier and its
// power-law fit loss = a * C^-b + c with standard errors. A view over plain data: the app computes
// frontiers and fits (core/runs) and hands them over; a table under the plot names every fit, so
// no legend ever covers or shrinks the axes.
#pragma once
#include <QColor>
#include <QPointF>
#include <QString>
#include <QVector>
#include <QWidget>
#include <memory>

#include "widgets/plots/plot_export_button.h"
#include "widgets/plots/series_colours.h"

class QCustomPlot;
class QComboBox;
class QTableWidget;
class QLabel;

namespace mixerlab::widgets {

struct FrontierGroup {
  QString label;
  QString colour_key;  // the series name its colour goes by (empty: the label)
  int runs = 0;
  QVector<QPointF> points;    // (FLOPs, eval loss) of every run in the group
  QVector<QPointF> frontier;  // the Pareto frontier, ascending FLOPs
  bool fitted = false;
  QString problem;  // why there is no fit
  double a = 0, b = 0, c = 0, a_std = 0, b_std = 0, c_std = 0, rmse = 0;
};

enum class FrontierGrouping { Architecture, ArchitectureAndWidth, AllButSeed };

class ComputeFrontierView : public QWidget {
  Q_OBJECT
 public:
  explicit ComputeFrontierView(QWidget* parent = nullptr);
  void setGroups(const QVector<FrontierGroup>& groups);
  FrontierGrouping grouping() const;
  int drawnGraphCount() const;     // for tests
  QString fitText(int row) const;  // the fit table's row as text (for tests)
  QRect axisRect() const;
  QColor groupColour(int row) const;  // the colour group `row` was drawn in (for tests)
  // Colours by FrontierGroup::colour_key from this registry (default: the view's own; the app gives
  // it the Curves panels'), so a group has the same colour on both tabs.
  void setSeriesColours(std::shared_ptr<SeriesColours> colours) { colours_ = std::move(colours); }
  // What its Export button writes: the plot with a legend (SVG, PNG) and its graphs (graphsCsv).
  const PlotWriters& exportWriters() const { return writers_; }

 Q_SIGNALS:
  void groupingChanged();  // the user picked another grouping: recompute and setGroups again
  void refreshRequested();

 private:
  QCustomPlot* plot_;
  QComboBox* grouping_;
  QTableWidget* fits_;
  QLabel* note_;
  std::shared_ptr<SeriesColours> colours_ = std::make_shared<SeriesColours>();
  QVector<QColor> group_colours_;
  PlotWriters writers_;
};

}  // namespace mixerlab::widgets
