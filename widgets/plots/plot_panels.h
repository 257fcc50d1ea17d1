// PlotPanels: the workbench's plot area, a column of metric panels (LossPlotWidget) that all show
// the same runs. The first panel is the loss; "Add panel" adds one for any logged metric (learning
// rate, tokens/s, gradient norm, ...), each panel has its own metric, log scales and smoothing and
// can be closed (all but the first). The x axis is shared: choosing it in one panel sets it in all,
// every panel shows the same x range (the union of what they draw) and their axes start at the
// same pixel, so panels line up. The runs are listed once, beside the panels
// (RunLegendList, with search and hide/show), not in legends that would take the plots' height
// (D5). Runs given to the area reach every panel, as do "fork from here" requests.
#pragma once
#include <functional>
#include <memory>

#include <QHash>
#include <QStringList>
#include <QVector>
#include <QWidget>

#include "widgets/plots/loss_series.h"
#include "widgets/plots/series_colours.h"

class QComboBox;
class QSplitter;

namespace mixerlab::widgets {

class LossPlotWidget;
class RunLegendList;

class PlotPanels : public QWidget {
  Q_OBJECT
 public:
  explicit PlotPanels(QWidget* parent = nullptr);

  LossPlotWidget* firstPanel() const { return panels_.front(); }
  QVector<LossPlotWidget*> panels() const { return panels_; }
  LossPlotWidget* addPanel(const QString& metric);
  void closePanel(LossPlotWidget* panel);  // the first panel stays
  QStringList panelMetrics() const;        // each panel's metric, top to bottom
  // Makes the panels show these metrics (the first panel's included), adding or closing panels.
  void setPanelMetrics(const QStringList& metrics);

  void setSeries(const LossSeries& series);
  // New points of a run already given (LossPlotWidget::appendPoints on every panel).
  void appendPoints(const LossSeries& points);
  bool hasRun(const QString& run) const;
  void removeRun(const QString& run);
  void forgetRuns();
  RunLegendList* legend() const { return legend_; }
  // The colours of runs and groups, shared by every panel and the legend; hand it to other views
  // (the Scaling tab) so a group keeps its colour there.
  std::shared_ptr<SeriesColours> seriesColours() const { return colours_; }
  // Run groups, chosen under the plots: "Each run", "Mean of seeds" (grouping "seed") or "Mean by
  // <field>" (grouping "field:<key>", one entry per key of setGroupingFields). groupOf(run,
  // grouping) is the app's label of a run's group. A group with two or more shown runs is drawn
  // as its mean over a min-max band, in the group's colour (the legend's swatches follow).
  using GroupOf = std::function<QString(const QString& run, const QString& grouping)>;
  void setGroupOf(GroupOf group_of);
  void setGroupingFields(const QStringList& keys);  // the settings that differ between runs
  void setGrouping(const QString& grouping);        // "", "seed" or "field:<key>"
  QString grouping() const;
  void setGroupSeeds(bool on) { setGrouping(on ? "seed" : QString()); }
  bool groupSeeds() const { return grouping() == "seed"; }
  // run -> group label under the grouping chosen (empty for "Each run"): what the panels draw.
  QHash<QString, QString> runGroups() const { return run_groups_; }

 Q_SIGNALS:
  void panelsChanged();  // a panel was added or closed, or a panel's view settings changed
  void forkRequested(const QString& run, double step);
  void runGroupsChanged();  // runGroups() changed (another grouping, a run added or gone)

 private:
  void adopt(LossPlotWidget* panel);
  void alignXRanges();  // every panel to the union of their drawn x extents
  void applyGroups();   // the groups (or none) to every panel, and the legend's colours
  GroupOf group_of_;
  QComboBox* group_box_ = nullptr;
  QSplitter* splitter_;
  RunLegendList* legend_;
  QVector<LossPlotWidget*> panels_;
  std::shared_ptr<SeriesColours> colours_ = std::make_shared<SeriesColours>();
  QList<LossSeries> series_;  // what a new panel starts with
  QHash<QString, QString> run_groups_;
};

}  // namespace mixerlab::widgets
