// The plot area's side legend (see run_legend_list.h).
#include "widgets/plots/run_legend_list.h"

#include <algorithm>

#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QPainter>
#include <QPixmap>
#include <QVBoxLayout>

namespace mixerlab::widgets {

namespace {
// A short thick line in the run's colour, as its curve is drawn.
QIcon swatch(const QColor& colour) {
  QPixmap pixmap(22, 12);
  pixmap.fill(Qt::transparent);
  QPainter painter(&pixmap);
  painter.setPen(QPen(colour, 3));
  painter.drawLine(1, 6, 21, 6);
  return QIcon(pixmap);
}
}  // namespace

RunLegendList::RunLegendList(QWidget* parent)
    : QWidget(parent), search_(new QLineEdit(this)), list_(new QListWidget(this)), groups_(new QListWidget(this)) {
  groups_->setObjectName("legend-groups");
  groups_->setToolTip("Each group is drawn as the mean of its shown runs over a band from their lowest to highest");
  groups_->setSelectionMode(QAbstractItemView::NoSelection);
  groups_->setFocusPolicy(Qt::NoFocus);
  groups_->setTextElideMode(Qt::ElideMiddle);
  groups_->hide();
  search_->setObjectName("legend-search");
  search_->setPlaceholderText("Find a run");
  search_->setClearButtonEnabled(true);
  list_->setObjectName("legend-list");
  list_->setToolTip("Untick a run to hide it in every panel");
  list_->setTextElideMode(Qt::ElideMiddle);  // long run names keep their start and their end
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  layout->addWidget(groups_);
  layout->addWidget(search_);
  layout->addWidget(list_, 1);
  setMinimumWidth(140);
  connect(search_, &QLineEdit::textChanged, this, [this] { applySearch(); });
  connect(list_, &QListWidget::itemChanged, this, [this] { Q_EMIT hiddenRunsChanged(hiddenRuns()); });
  connect(list_, &QListWidget::itemDoubleClicked, this, [this](QListWidgetItem* row) {
    const QString run = row->data(Qt::UserRole).toString();
    setRunPinned(run, !pinnedRuns().contains(run));
  });
  list_->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(list_, &QWidget::customContextMenuRequested, this, [this](const QPoint& pos) {
    QListWidgetItem* row = list_->itemAt(pos);
    if (row == nullptr) return;
    const QString run = row->data(Qt::UserRole).toString();
    const bool pinned = pinnedRuns().contains(run);
    QMenu menu(this);
    menu.addAction(pinned ? tr("Unpin %1").arg(run) : tr("Pin %1 to the top").arg(run), this,
                   [this, run, pinned] { setRunPinned(run, !pinned); });
    menu.exec(list_->viewport()->mapToGlobal(pos));
  });
}

QListWidgetItem* RunLegendList::item(const QString& run) const {
  for (int i = 0; i < list_->count(); ++i) {
    if (list_->item(i)->data(Qt::UserRole).toString() == run) return list_->item(i);
  }
  return nullptr;
}

void RunLegendList::setRun(const QString& run, const QColor& colour) {
  const QSignalBlocker quiet(list_);
  QListWidgetItem* row = item(run);
  if (row == nullptr) {
    row = new QListWidgetItem(run, list_);
    row->setData(Qt::UserRole, run);
    row->setData(Qt::UserRole + 1, list_->count());  // the order it was added in
    row->setToolTip(run);
    row->setFlags(row->flags() | Qt::ItemIsUserCheckable);
    row->setCheckState(Qt::Checked);
  }
  if (row->data(Qt::DecorationPropertyRole).value<QColor>() == colour) return;  // every metrics update lands here
  row->setIcon(swatch(colour));
  row->setData(Qt::DecorationPropertyRole, colour);
  applySearch();
}

void RunLegendList::removeRun(const QString& run) {
  const bool was_hidden = hiddenRuns().contains(run);
  delete item(run);
  if (was_hidden) Q_EMIT hiddenRunsChanged(hiddenRuns());
}

void RunLegendList::clear() {
  const bool any_hidden = !hiddenRuns().isEmpty();
  list_->clear();
  if (any_hidden) Q_EMIT hiddenRunsChanged({});
}

QStringList RunLegendList::runs() const {
  QStringList out;
  for (int i = 0; i < list_->count(); ++i) out << list_->item(i)->data(Qt::UserRole).toString();
  return out;
}

QStringList RunLegendList::listedRuns() const {
  QStringList out;
  for (int i = 0; i < list_->count(); ++i) {
    if (!list_->item(i)->isHidden()) out << list_->item(i)->data(Qt::UserRole).toString();
  }
  return out;
}

QSet<QString> RunLegendList::hiddenRuns() const {
  QSet<QString> out;
  for (int i = 0; i < list_->count(); ++i) {
    if (list_->item(i)->checkState() != Qt::Checked) out.insert(list_->item(i)->data(Qt::UserRole).toString());
  }
  return out;
}

void RunLegendList::setRunHidden(const QString& run, bool hidden) {
  if (QListWidgetItem* row = item(run)) row->setCheckState(hidden ? Qt::Unchecked : Qt::Checked);
}

void RunLegendList::setSearch(const QString& text) { search_->setText(text); }

QSet<QString> RunLegendList::pinnedRuns() const {
  QSet<QString> out;
  for (int i = 0; i < list_->count(); ++i) {
    if (list_->item(i)->font().bold()) out.insert(list_->item(i)->data(Qt::UserRole).toString());
  }
  return out;
}

void RunLegendList::setRunPinned(const QString& run, bool pinned) {
  QListWidgetItem* row = item(run);
  if (row == nullptr || row->font().bold() == pinned) return;
  const QSignalBlocker quiet(list_);
  QFont font = row->font();
  font.setBold(pinned);
  row->setFont(font);
  // Pinned rows first, each group in the order the runs were added.
  QListWidgetItem* taken = list_->takeItem(list_->row(row));
  int at = 0;
  while (at < list_->count() && list_->item(at)->font().bold()) ++at;
  if (!pinned) {
    const int added = taken->data(Qt::UserRole + 1).toInt();
    while (at < list_->count() && list_->item(at)->data(Qt::UserRole + 1).toInt() < added) ++at;
  }
  list_->insertItem(at, taken);
  Q_EMIT pinnedRunsChanged(pinnedRuns());
}

void RunLegendList::setGroups(const QVector<LegendGroup>& groups, const QString& members) {
  groups_->clear();
  for (const LegendGroup& group : groups) {
    auto* row = new QListWidgetItem(
        swatch(group.colour), QString("%1 (%2 %3)").arg(group.label).arg(group.runs.size()).arg(members), groups_);
    row->setData(Qt::DecorationPropertyRole, group.colour);
    row->setToolTip(QString("Mean of %1 over a min-max band").arg(group.runs.join(", ")));
  }
  groups_->setVisible(!groups.isEmpty());
  // As tall as its rows, up to four; more scroll.
  const int rows = std::min<int>(4, static_cast<int>(groups.size()));
  const int row_px = groups.isEmpty() ? 0 : groups_->sizeHintForRow(0);
  groups_->setFixedHeight(rows * row_px + 2 * groups_->frameWidth());
}

QStringList RunLegendList::groupEntries() const {
  QStringList out;
  for (int i = 0; i < groups_->count(); ++i) out << groups_->item(i)->text();
  return out;
}

void RunLegendList::applySearch() {
  const QString text = search_->text().trimmed();
  for (int i = 0; i < list_->count(); ++i) {
    QListWidgetItem* row = list_->item(i);
    row->setHidden(!text.isEmpty() && !row->text().contains(text, Qt::CaseInsensitive));
  }
}

}  // namespace mixerlab::widgets
