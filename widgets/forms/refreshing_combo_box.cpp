// See refreshing_combo_box.h.
#include "widgets/forms/refreshing_combo_box.h"

namespace mixerlab::widgets {

RefreshingComboBox::RefreshingComboBox(QWidget* parent) : QComboBox(parent) {}

void RefreshingComboBox::showPopup() {
  Q_EMIT popupAboutToShow();
  QComboBox::showPopup();
}

}  // namespace mixerlab::widgets
