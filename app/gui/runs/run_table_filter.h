// RunTableFilter: the sort and filter between the RunListModel and the runs table. Sorting uses
// the model's SortRole (numbers as numbers, runs without a value last). The filter is a line of
// space-separated terms that must all match: a plain term matches any cell's text (run, status,
// tags, notes, hyperparameters; case-insensitive), "key=value" matches a setting whose dotted key
// ends with `key` ("d_model=256", "train.learning_rate=0.001"), and "tag:x" matches a tag exactly.
// The plot panels, the comparison dock and the Scaling tab follow the same filter.
#pragma once
#include <QSortFilterProxyModel>
#include <QStringList>

namespace mixerlab::gui {

class RunListModel;

class RunTableFilter : public QSortFilterProxyModel {
  Q_OBJECT
 public:
  explicit RunTableFilter(RunListModel* runs, QObject* parent = nullptr);
  void setFilterText(const QString& text);
  QString filterText() const { return terms_.join(' '); }
  // Whether the filter lets `run` through (the plots draw only the runs the table shows).
  bool acceptsRun(const QString& run) const;

 protected:
  bool filterAcceptsRow(int source_row, const QModelIndex& source_parent) const override;

 private:
  bool termMatches(const QString& run, int source_row, const QString& term) const;
  RunListModel* runs_;
  QStringList terms_;
};

}  // namespace mixerlab::gui
