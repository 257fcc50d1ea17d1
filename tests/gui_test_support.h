// Helpers shared by the GUI test programs (tests/gui): timing a widget's teardown, and a launch
// target that starts nothing.
#pragma once
#include <memory>

#include <QElapsedTimer>

#include "app/gui/launch/run_launcher.h"

namespace mixerlab::testing {

// Destroys `object` (a panel still running workers, say) and returns how long that took in ms: the
// destructor must cancel and join its threads promptly.
template <typename T>
qint64 msToDestroy(std::unique_ptr<T>& object) {
  QElapsedTimer clock;
  clock.start();
  object.reset();
  return clock.elapsed();
}

// A launch target that never runs anything (and gives no process to watch): a queue's first run
// stays "current" and the rest wait, until the test reports states itself.
struct NullTarget : gui::LaunchTarget {
  NullTarget() : gui::LaunchTarget(gui::LaunchTargetSpec::localRanks(3)) {}
  QString start(const QStringList&, const QString&, gui::LaunchedProcess*) override { return {}; }
};

}  // namespace mixerlab::testing
