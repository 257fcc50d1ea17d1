// The table with a frozen first column (see frozen_column_table_view.h).
#include "widgets/tables/frozen_column_table_view.h"

#include <QHeaderView>
#include <QScrollBar>

namespace mixerlab::widgets {

FrozenColumnTableView::FrozenColumnTableView(QWidget* parent) : QTableView(parent), frozen_(new QTableView(this)) {
  frozen_->setObjectName("frozen-column");
  frozen_->setFocusPolicy(Qt::NoFocus);
  frozen_->verticalHeader()->hide();
  frozen_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  frozen_->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  frozen_->setVerticalScrollMode(ScrollPerPixel);
  frozen_->setStyleSheet("QTableView { border: none; border-right: 1px solid palette(mid); }");
  frozen_->setContextMenuPolicy(Qt::CustomContextMenu);
  setVerticalScrollMode(ScrollPerPixel);
  setHorizontalScrollMode(ScrollPerPixel);
  viewport()->stackUnder(frozen_);
  connect(horizontalHeader(), &QHeaderView::sectionResized, this, [this](int column, int, int size) {
    if (column == 0) {
      frozen_->setColumnWidth(0, size);
      placeFrozen();
    }
  });
  connect(verticalHeader(), &QHeaderView::sectionResized, this,
          [this](int row, int, int size) { frozen_->setRowHeight(row, size); });
  connect(frozen_->verticalScrollBar(), &QAbstractSlider::valueChanged, verticalScrollBar(),
          &QAbstractSlider::setValue);
  connect(verticalScrollBar(), &QAbstractSlider::valueChanged, frozen_->verticalScrollBar(),
          &QAbstractSlider::setValue);
  // What happens on the overlay happens on the table.
  connect(frozen_->horizontalHeader(), &QHeaderView::sectionClicked, this, [this](int column) {
    const bool same = horizontalHeader()->sortIndicatorSection() == column;
    const Qt::SortOrder order = same && horizontalHeader()->sortIndicatorOrder() == Qt::AscendingOrder
                                    ? Qt::DescendingOrder
                                    : Qt::AscendingOrder;
    sortByColumn(column, order);
  });
  connect(horizontalHeader(), &QHeaderView::sortIndicatorChanged, frozen_->horizontalHeader(),
          &QHeaderView::setSortIndicator);
  connect(frozen_, &QWidget::customContextMenuRequested, this, [this](const QPoint& pos) {
    Q_EMIT customContextMenuRequested(viewport()->mapFromGlobal(frozen_->viewport()->mapToGlobal(pos)));
  });
  connect(frozen_, &QAbstractItemView::doubleClicked, this, &QAbstractItemView::doubleClicked);
  connect(frozen_, &QAbstractItemView::clicked, this, &QAbstractItemView::clicked);
}

void FrozenColumnTableView::setModel(QAbstractItemModel* model) {
  QTableView::setModel(model);
  frozen_->setModel(model);
  frozen_->setSelectionModel(selectionModel());
  frozen_->setSelectionBehavior(SelectRows);
  frozen_->horizontalHeader()->setSortIndicatorShown(true);
  frozen_->horizontalHeader()->setToolTip("click to sort");
  showOnlyFirstColumn();
  if (model) {
    connect(model, &QAbstractItemModel::columnsInserted, this, [this] { showOnlyFirstColumn(); });
    connect(model, &QAbstractItemModel::modelReset, this, [this] { showOnlyFirstColumn(); });
    connect(model, &QAbstractItemModel::layoutChanged, this, [this] { showOnlyFirstColumn(); });
  }
  placeFrozen();
}

void FrozenColumnTableView::showOnlyFirstColumn() {
  if (!model()) return;
  for (int column = 1; column < model()->columnCount(); ++column) frozen_->setColumnHidden(column, true);
  frozen_->setColumnWidth(0, columnWidth(0));
  placeFrozen();
}

void FrozenColumnTableView::resizeEvent(QResizeEvent* event) {
  QTableView::resizeEvent(event);
  placeFrozen();
}

void FrozenColumnTableView::updateGeometries() {
  QTableView::updateGeometries();
  placeFrozen();
}

QModelIndex FrozenColumnTableView::moveCursor(CursorAction action, Qt::KeyboardModifiers modifiers) {
  const QModelIndex current = QTableView::moveCursor(action, modifiers);
  // Moving left onto a cell under the overlay scrolls it into view beside the overlay.
  if (action == MoveLeft && current.column() > 0 && visualRect(current).topLeft().x() < frozen_->columnWidth(0)) {
    const int to = horizontalScrollBar()->value() + visualRect(current).topLeft().x() - frozen_->columnWidth(0);
    horizontalScrollBar()->setValue(to);
  }
  return current;
}

void FrozenColumnTableView::scrollTo(const QModelIndex& index, ScrollHint hint) {
  if (index.column() > 0) QTableView::scrollTo(index, hint);
}

void FrozenColumnTableView::placeFrozen() {
  const int row_header = verticalHeader()->isHidden() ? 0 : verticalHeader()->width();
  frozen_->setGeometry(row_header + frameWidth(), frameWidth(), columnWidth(0),
                       viewport()->height() + horizontalHeader()->height());
}

}  // namespace mixerlab::widgets
