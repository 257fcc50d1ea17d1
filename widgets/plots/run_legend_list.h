// RunLegendList: the plot area's one legend, a list beside the panels instead of a legend inside
// each plot. A legend inside a plot takes rows from its axes as runs are added (with five runs and
// two panels the loss plot shrank to about 50 pixels); a side list scrolls instead,
// and its search field finds a run among dozens. Each row is a run's colour and name with a check
// box: unticking hides the run in every panel (its colour is kept), ticking shows it again.
// Plain Qt, no plot types.
#pragma once
#include <QColor>
#include <QSet>
#include <QString>
#include <QWidget>

class QLineEdit;
class QListWidget;
class QListWidgetItem;

namespace mixerlab::widgets {

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

 Q_SIGNALS:
  void hiddenRunsChanged(const QSet<QString>& hidden);
  void pinnedRunsChanged(const QSet<QString>& pinned);

 private:
  QListWidgetItem* item(const QString& run) const;
  void applySearch();
  QLineEdit* search_;
  QListWidget* list_;
};

}  // namespace mixerlab::widgets
