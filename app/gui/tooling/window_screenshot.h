// A window as the screen shows it, tooltips and dialogs over it included (a tooltip is a window of its own, so
// grabbing the window alone would miss it); offscreen platforms have no screen to read, and there
// the window's own rendering is taken. Used by the --screenshot start options that make the docs'
// screenshots from the real app.
#pragma once
#include <QPixmap>

class QWidget;

namespace mixerlab::gui {

QPixmap windowScreenshot(QWidget& window);

// For a screenshot of a tab, the tab gets the room: the run list, log and comparison docks are
// capped at a few rows (the process quits after the screenshot). resizeDocks would leave docks
// restored from the saved window state as they were; lifting the cap gives them their height back.
void capDocksForScreenshot(QWidget& window);

}  // namespace mixerlab::gui
