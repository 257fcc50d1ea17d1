// Sorting and filtering of the runs table (see run_table_filter.h).
#include "app/gui/runs/run_table_filter.h"

#include "app/gui/runs/run_list_model.h"

namespace mixerlab::gui {

RunTableFilter::RunTableFilter(RunListModel* runs, QObject* parent) : QSortFilterProxyModel(parent), runs_(runs) {
  setSourceModel(runs);
  setSortRole(RunListModel::SortRole);
  setDynamicSortFilter(true);  // live updates keep the order and the filter
}

void RunTableFilter::setFilterText(const QString& text) {
  terms_ = text.split(' ', Qt::SkipEmptyParts);
  invalidateFilter();
}

bool RunTableFilter::termMatches(const QString& run, int source_row, const QString& term) const {
  if (term.startsWith("tag:", Qt::CaseInsensitive)) {
    return runs_->tags(run).contains(term.mid(4), Qt::CaseInsensitive);
  }
  const int equals = term.indexOf('=');
  if (equals > 0) {
    const QString key = term.left(equals), wanted = term.mid(equals + 1);
    const QVariantMap settings = runs_->settings(run);
    for (auto it = settings.cbegin(); it != settings.cend(); ++it) {
      if (it.key() != key && !it.key().endsWith("." + key)) continue;
      bool both_numbers = false, ok = false;
      const double number = it.value().toDouble(&both_numbers), wanted_number = wanted.toDouble(&ok);
      if ((both_numbers && ok && number == wanted_number) ||
          it.value().toString().compare(wanted, Qt::CaseInsensitive) == 0)
        return true;
    }
    return false;
  }
  for (int column = 0; column < runs_->columnCount(); ++column) {
    if (runs_->index(source_row, column).data().toString().contains(term, Qt::CaseInsensitive)) return true;
  }
  return false;
}

bool RunTableFilter::acceptsRun(const QString& run) const {
  const int row = runs_->rowOf(run);
  return row >= 0 && filterAcceptsRow(row, {});
}

bool RunTableFilter::filterAcceptsRow(int source_row, const QModelIndex&) const {
  const QString run = runs_->runAt(source_row);
  for (const QString& term : terms_) {
    if (!termMatches(run, source_row, term)) return false;
  }
  return true;
}

}  // namespace mixerlab::gui
