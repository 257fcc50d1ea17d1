// Window sizes cut to the screen (see screen_fit.h).
#include "app/gui/common/screen_fit.h"

#include <QScreen>
#include <QWidget>

#include <algorithm>

namespace mixerlab::gui {

QSize sizeWithinScreen(const QWidget& window, const QSize& wanted) {
  const QScreen* screen = window.screen();
  if (!screen) return wanted;
  const QSize room = screen->availableGeometry().size() - QSize(kFrameRoomPx, kFrameRoomPx);
  return {std::max(1, std::min(wanted.width(), room.width())), std::max(1, std::min(wanted.height(), room.height()))};
}

void resizeWithinScreen(QWidget& window, const QSize& wanted) { window.resize(sizeWithinScreen(window, wanted)); }

int leastTabsHeightPx(int available_height_px) {
  return std::clamp(available_height_px * 2 / 5, kSmallestTabsHeightPx, kLeastTabsHeightPx);
}

}  // namespace mixerlab::gui
