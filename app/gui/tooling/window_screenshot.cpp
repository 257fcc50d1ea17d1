// Window screenshots with their tooltips (see window_screenshot.h).
#include "app/gui/tooling/window_screenshot.h"

#include <QDockWidget>
#include <QPixmap>
#include <QScreen>
#include <QWidget>

namespace mixerlab::gui {

QPixmap windowScreenshot(QWidget& window) {
  QPixmap shot;
  if (QScreen* screen = window.screen()) {
    const QRect area = window.frameGeometry();
    shot = screen->grabWindow(0, area.x(), area.y(), area.width(), area.height());
  }
  if (shot.isNull()) shot = window.grab();
  return shot;
}

void capDocksForScreenshot(QWidget& window) {
  for (const char* name : {"runs-dock", "log-dock", "comparison-dock"}) {
    if (auto* dock = window.findChild<QDockWidget*>(name)) dock->setMaximumHeight(130);
  }
}

}  // namespace mixerlab::gui
