// A table whose first column stays in place when the others scroll sideways: the run table's name
// column scrolled out of sight with many hyperparameter columns. A second view over
// the same model and selection shows only column 0 on top of the main one; widths, row heights,
// vertical scrolling, sorting, the check boxes and right-clicks go through to the main view. Plain Qt.
#pragma once
#include <QTableView>

namespace mixerlab::widgets {

class FrozenColumnTableView : public QTableView {
  Q_OBJECT
 public:
  explicit FrozenColumnTableView(QWidget* parent = nullptr);
  void setModel(QAbstractItemModel* model) override;
  QTableView* frozenView() const { return frozen_; }  // the overlay (for tests)

 protected:
  void resizeEvent(QResizeEvent* event) override;
  QModelIndex moveCursor(CursorAction action, Qt::KeyboardModifiers modifiers) override;
  void scrollTo(const QModelIndex& index, ScrollHint hint = EnsureVisible) override;
  void updateGeometries() override;

 private:
  void placeFrozen();
  void showOnlyFirstColumn();
  QTableView* frozen_;
};

}  // namespace mixerlab::widgets
