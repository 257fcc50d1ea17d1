// RunLegendList: the plot area's one legend, a list beside the panels instead of a legend inside
// each plot. A legend inside a plot takes rows from its axes as runs are added (with five runs and
// two panels the loss plot shrank to about 50 pixels); a side list scrolls instead,
// and its search field finds a run among dozens. Each row is a run's colour and name with a check
// box: unticking hides the run in every panel (its colour is kept), ticking shows it again. While
// runs are grouped, a list above the runs names each group drawn as a mean ("mixer (3 seeds)") in
// its colour, so a figure's grouped curves can be read off the legend. Plain Qt, no plot types.
#pragma once
#include <QColor>
#include <QSet>
#include <QString>
#include <QStringList>
#include <QVector>
#include <QWidget>

class QLineEdit;
class QListWidget;
class QListWidgetItem;

namespace mixerlab::widgets {

// A group the panels draw as its mean over a band: its label, colour and the shown runs in it.
struct LegendGroup {
  QString label;
  QColor colour;
  QStringList runs;
};

class RunLegendList : public QWidget {
  Q_OBJECT
 public:
  explicit RunLegendList(QWidget* parent = nullptr);

  void setRun(const QString& run, const QColor& colour);  // adds the row, or updates its colour
  void removeRun(const QString& run);
  void clear();
  QStringList runs() const;          // every row, in the order added
  QStringList listedRuns() const;    // the rows the search leaves visible
  QSet<QString> hiddenRuns() const;  // the unticked rows
  void setRunHidden(const QString& run, bool hidden);
  void setSearch(const QString& text);
  // Pinned runs (double-click a row, or its context menu) are listed first, in bold, and drawn over
  // the others with thicker lines.
  void setRunPinned(const QString& run, bool pinned);
  QSet<QString> pinnedRuns() const;
  // The groups drawn as means (none: the group list hides). `members` names what a group's runs
  // are: "seeds" for a mean of seeds, "runs" for a mean by a setting.
  void setGroups(const QVector<LegendGroup>& groups, const QString& members);
  QStringList groupEntries() const;  // the group list's rows, e.g. "mixer (3 seeds)"

 Q_SIGNALS:
  void hiddenRunsChanged(const QSet<QString>& hidden);
  void pinnedRunsChanged(const QSet<QString>& pinned);

 private:
  QListWidgetItem* item(const QString& run) const;
  void applySearch();
  QLineEdit* search_;
  QListWidget* list_;
  QListWidget* groups_;
};

}  // namespace mixerlab::widgets
