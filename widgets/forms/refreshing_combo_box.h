// A combo box that asks for fresh items each time its list opens. Lists of runs must show the runs
// trained since the window opened (Inspect > Over training listed none until the
// project was reopened); connecting popupAboutToShow() to the owner's refresh does that without a
// folder watcher.
#pragma once
#include <QComboBox>

namespace mixerlab::widgets {

class RefreshingComboBox : public QComboBox {
  Q_OBJECT
 public:
  explicit RefreshingComboBox(QWidget* parent = nullptr);
  void showPopup() override;

 Q_SIGNALS:
  void popupAboutToShow();  // emitted before the list opens; the items may be replaced then
};

}  // namespace mixerlab::widgets
