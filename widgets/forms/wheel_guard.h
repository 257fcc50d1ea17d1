// Scrolling a form with the mouse wheel must scroll the form, not change the value of whichever
// combo box or spin box happens to pass under the pointer (the run form's Objective
// silently changed). guardWheel() makes an editor take wheel events only while it has keyboard
// focus (clicked or tabbed into); otherwise the nearest scroll area around it gets the event.
#pragma once

class QWidget;

namespace mixerlab::widgets {

void guardWheel(QWidget* editor);

}  // namespace mixerlab::widgets
