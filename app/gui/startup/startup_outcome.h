// How a scripted start of mixerlab-gui ends (--screenshot, --report-latency, a startup action with
// a screenshot): a problem on the way (a project that would not open, a run name the tab refused, a
// screenshot that could not be written) is printed on stderr as "mixerlab-gui: ..." when it
// happens, and the program then exits with 1 instead of 0, so a script never takes a missing or
// wrong PNG for a good one. An interactive start shows the same problems in the window and never
// quits on them.
#pragma once
#include <QString>

class QPixmap;
class QWidget;

namespace mixerlab::gui {

void reportStartupProblem(const QString& problem);
bool startupHadProblem();
void forgetStartupProblems();  // for tests, which start many windows in one process

// Writes the PNG through a temporary file renamed into place: a full disk or a missing folder
// leaves no partial file and is reported (naming the file and the fix). True when written.
bool saveStartupScreenshot(const QPixmap& shot, const QString& file);

// Quits the application with 1 after any reported problem, else 0.
void endScriptedStart();

// After `delay_ms` (for tooltips and late repaints to show): saves `window` as the screen shows it
// to `file`, then ends the scripted start. The one way a startup action takes its screenshot.
void endWithWindowScreenshot(QWidget& window, const QString& file, int delay_ms);

}  // namespace mixerlab::gui
