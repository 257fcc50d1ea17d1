// The workbench's column of metric panels (see plot_panels.h).
#include "widgets/plots/plot_panels.h"

#include <algorithm>
#include <optional>

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QMap>
#include <QPushButton>
#include <QSplitter>
#include <QToolButton>
#include <QVBoxLayout>

#include "widgets/plots/loss_plot_widget.h"
#include "widgets/plots/run_legend_list.h"

namespace mixerlab::widgets {

namespace {
constexpr int kAxisLeftMarginPx = 72;  // room for the widest usual tick labels ("0.0001", "25,000")
}

PlotPanels::PlotPanels(QWidget* parent)
    : QWidget(parent), splitter_(new QSplitter(Qt::Vertical)), legend_(new RunLegendList) {
  auto* add = new QPushButton("Add panel", this);
  add->setObjectName("add-panel");
  add->setToolTip("Plot another metric (learning rate, tokens/s, gradient norm, ...) below");
  connect(add, &QPushButton::clicked, this, [this] {
    // A useful start: the first logged metric no panel shows yet.
    const QStringList shown = panelMetrics();
    QString metric = "lr";
    for (const QString& m : panels_.front()->availableMetrics()) {
      if (!shown.contains(m)) {
        metric = m;
        break;
      }
    }
    addPanel(metric);
  });
  group_box_ = new QComboBox(this);
  group_box_->setObjectName("group-runs");
  group_box_->setToolTip(
      "Draw each group of runs as its mean over a min-max band: runs that differ only in "
      "their seed, or runs with the same value of a setting");
  group_box_->addItem("Each run", QString());
  group_box_->addItem("Mean of seeds", QString("seed"));
  group_box_->setEnabled(false);  // until the app says how runs group
  group_box_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  connect(group_box_, &QComboBox::currentIndexChanged, this, [this] {
    applyGroups();
    Q_EMIT panelsChanged();
  });
  auto* bar = new QHBoxLayout;
  bar->setContentsMargins(6, 0, 6, 0);
  bar->addWidget(new QLabel("Runs:", this));
  bar->addWidget(group_box_);
  bar->addStretch();
  bar->addWidget(add);
  auto* beside = new QSplitter(Qt::Horizontal, this);
  beside->setObjectName("plots-and-legend");
  beside->addWidget(splitter_);
  beside->addWidget(legend_);
  beside->setStretchFactor(0, 1);
  beside->setStretchFactor(1, 0);
  beside->setCollapsible(0, false);
  beside->setSizes({800, 180});
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(beside, 1);
  layout->addLayout(bar);
  connect(legend_, &RunLegendList::pinnedRunsChanged, this, [this](const QSet<QString>& pinned) {
    for (LossPlotWidget* p : panels_) p->setPinnedRuns(pinned);
  });
  connect(legend_, &RunLegendList::hiddenRunsChanged, this, [this](const QSet<QString>& hidden) {
    for (LossPlotWidget* p : panels_) p->setHiddenRuns(hidden);
    applyGroups();
  });
  auto* first = new LossPlotWidget(splitter_);
  panels_.push_back(first);
  splitter_->addWidget(first);
  adopt(first);
}

// The runs and x axis of the others, and the connections every panel has.
void PlotPanels::adopt(LossPlotWidget* panel) {
  panel->setSeriesColours(colours_);
  panel->setLegendShown(false);
  panel->setAxisLeftMargin(kAxisLeftMarginPx);
  panel->setHiddenRuns(legend_->hiddenRuns());
  panel->setPinnedRuns(legend_->pinnedRuns());
  if (!panels_.isEmpty() && panel != panels_.front()) {
    QHash<QString, QString> groups;  // a new panel starts grouped as the others
    if (group_of_ && !grouping().isEmpty())
      for (const LossSeries& s : series_) groups[s.run] = group_of_(s.run, grouping());
    panel->setRunGroups(groups);
  }
  for (const LossSeries& s : series_) panel->setSeries(s);
  if (panel != panels_.front()) panel->setAxis(panels_.front()->axis());
  connect(panel, &LossPlotWidget::forkRequested, this, &PlotPanels::forkRequested);
  connect(panel, &LossPlotWidget::viewSettingsChanged, this, [this, panel] {
    for (LossPlotWidget* other : panels_) {  // one x axis for all panels
      if (other != panel && other->axis() != panel->axis()) other->setAxis(panel->axis());
    }
    alignXRanges();
    Q_EMIT panelsChanged();
  });
  alignXRanges();
}

void PlotPanels::setGroupOf(GroupOf group_of) {
  group_of_ = std::move(group_of);
  group_box_->setEnabled(static_cast<bool>(group_of_));
  applyGroups();
}

void PlotPanels::setGroupingFields(const QStringList& keys) {
  QStringList now;
  for (int i = 2; i < group_box_->count(); ++i) now << group_box_->itemData(i).toString().mid(6);
  if (now == keys) return;
  const QString chosen = grouping();
  const QSignalBlocker quiet(group_box_);
  while (group_box_->count() > 2) group_box_->removeItem(2);
  for (const QString& key : keys) group_box_->addItem("Mean by " + key, "field:" + key);
  const int at = group_box_->findData(chosen);
  group_box_->setCurrentIndex(at >= 0 ? at : 0);
  if (at < 0 && !chosen.isEmpty()) applyGroups();  // the chosen field is gone: each run again
}

void PlotPanels::setGrouping(const QString& grouping) {
  const int at = group_box_->findData(grouping);
  group_box_->setCurrentIndex(at >= 0 ? at : 0);
}

QString PlotPanels::grouping() const { return group_box_->currentData().toString(); }

void PlotPanels::applyGroups() {
  QHash<QString, QString> groups;
  QHash<QString, int> shown;
  if (group_of_ && !grouping().isEmpty()) {
    const QSet<QString> hidden = legend_->hiddenRuns();
    for (const LossSeries& s : series_) {
      groups[s.run] = group_of_(s.run, grouping());
      if (!hidden.contains(s.run)) ++shown[groups[s.run]];
    }
  }
  for (LossPlotWidget* p : panels_) p->setRunGroups(groups);
  const bool changed = groups != run_groups_;
  run_groups_ = groups;
  for (const LossSeries& s : series_) {  // a swatch is the colour the run is drawn in
    const bool banded = shown.value(groups.value(s.run)) >= 2;
    legend_->setRun(s.run, panels_.front()->runColour(banded ? groups.value(s.run) : s.run));
  }
  QMap<QString, QStringList> banded;  // label -> shown runs, sorted by label as the panels draw them
  const QSet<QString> hidden = legend_->hiddenRuns();
  for (const LossSeries& s : series_) {
    if (groups.contains(s.run) && !hidden.contains(s.run) && shown.value(groups[s.run]) >= 2)
      banded[groups[s.run]] << s.run;
  }
  QVector<LegendGroup> entries;
  for (auto g = banded.cbegin(); g != banded.cend(); ++g)
    entries.push_back({g.key(), panels_.front()->runColour(g.key()), g.value()});
  legend_->setGroups(entries, grouping() == "seed" ? "seeds" : "runs");
  alignXRanges();
  if (changed) Q_EMIT runGroupsChanged();
}

void PlotPanels::alignXRanges() {
  std::optional<std::pair<double, double>> all;
  for (const LossPlotWidget* p : panels_) {
    const auto range = p->dataXRange();
    if (!range) continue;
    if (!all) all = range;
    all->first = std::min(all->first, range->first);
    all->second = std::max(all->second, range->second);
  }
  if (!all) return;
  if (all->second <= all->first) all->second = all->first + 1;  // one point: a range around it
  for (LossPlotWidget* p : panels_) p->setSharedXRange(all->first, all->second);
}

LossPlotWidget* PlotPanels::addPanel(const QString& metric) {
  auto* holder = new QWidget(splitter_);
  auto* panel = new LossPlotWidget(holder);
  panel->setMetric(metric);
  auto* close = new QToolButton(holder);
  close->setText("×");
  close->setToolTip("Close this panel");
  close->setObjectName("close-panel");
  auto* layout = new QVBoxLayout(holder);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  auto* top = new QHBoxLayout;
  top->addStretch();
  top->addWidget(close);
  layout->addLayout(top);
  layout->addWidget(panel, 1);
  panels_.push_back(panel);
  splitter_->addWidget(holder);
  splitter_->setStretchFactor(0, 2);  // the loss panel keeps the most room
  adopt(panel);
  connect(close, &QToolButton::clicked, this, [this, panel] { closePanel(panel); });
  Q_EMIT panelsChanged();
  return panel;
}

void PlotPanels::closePanel(LossPlotWidget* panel) {
  const int i = panels_.indexOf(panel);
  if (i <= 0) return;
  panels_.remove(i);
  panel->parentWidget()->deleteLater();
  Q_EMIT panelsChanged();
}

QStringList PlotPanels::panelMetrics() const {
  QStringList metrics;
  for (const LossPlotWidget* p : panels_) metrics << p->metric();
  return metrics;
}

void PlotPanels::setPanelMetrics(const QStringList& metrics) {
  if (metrics.isEmpty()) return;
  while (panels_.size() > 1) closePanel(panels_.back());
  panels_.front()->setMetric(metrics.front());
  for (int i = 1; i < metrics.size(); ++i) addPanel(metrics[i]);
}

void PlotPanels::setSeries(const LossSeries& series) {
  bool known = false;
  for (LossSeries& s : series_) {
    if (s.run == series.run) s = series, known = true;
  }
  if (!known) series_ << series;
  for (LossPlotWidget* p : panels_) p->setSeries(series);
  legend_->setRun(series.run, panels_.front()->runColour(series.run));
  if (group_of_ && !grouping().isEmpty()) {
    applyGroups();  // the new run may join a group
  } else {
    alignXRanges();
  }
}

void PlotPanels::appendPoints(const LossSeries& points) {
  auto it = std::find_if(series_.begin(), series_.end(), [&](const LossSeries& s) { return s.run == points.run; });
  if (it == series_.end()) {
    setSeries(points);
    return;
  }
  it->append(points);
  for (LossPlotWidget* p : panels_) p->appendPoints(points);
  if (group_of_ && !grouping().isEmpty()) {
    applyGroups();  // a group's mean and band take the new points
  } else {
    alignXRanges();
  }
}

bool PlotPanels::hasRun(const QString& run) const {
  return std::any_of(series_.cbegin(), series_.cend(), [&](const LossSeries& s) { return s.run == run; });
}

void PlotPanels::removeRun(const QString& run) {
  series_.erase(std::remove_if(series_.begin(), series_.end(), [&](const LossSeries& s) { return s.run == run; }),
                series_.end());
  for (LossPlotWidget* p : panels_) p->removeRun(run);
  legend_->removeRun(run);
  alignXRanges();
}

void PlotPanels::forgetRuns() {
  series_.clear();
  legend_->clear();
  for (LossPlotWidget* p : panels_) p->forgetRuns();
}

}  // namespace mixerlab::widgets
