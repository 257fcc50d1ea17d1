// Window sizes cut to the screen a window opens on: a dialog asks for the size its content reads
// best at, and on a laptop screen (1024x700) it gets at most the screen's available area less a
// frame's room, so its buttons are never below the screen's edge (its content scrolls instead). The
// main window's restored geometry is cut the same way.
#pragma once
#include <QSize>

class QWidget;

namespace mixerlab::gui {

// `wanted`, each side cut to the available area of `window`'s screen (less kFrameRoom); `wanted`
// when there is no screen.
QSize sizeWithinScreen(const QWidget& window, const QSize& wanted);
void resizeWithinScreen(QWidget& window, const QSize& wanted);

// Room left for a window manager's frame and title bar around a window cut to the screen.
inline constexpr int kFrameRoomPx = 40;

// The least height the main window keeps for its tab pages beside the docks: kLeastTabsHeightPx
// on a laptop screen (700 px and taller), two fifths of a smaller screen's available height (at
// least kSmallestTabsHeightPx), so the window's minimum still fits it (640x420).
inline constexpr int kLeastTabsHeightPx = 260;
inline constexpr int kSmallestTabsHeightPx = 120;
int leastTabsHeightPx(int available_height_px);

}  // namespace mixerlab::gui
