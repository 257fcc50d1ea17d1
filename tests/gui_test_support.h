// Helpers shared by the GUI test programs (tests/gui): timing a widget's teardown and finding the
// child widgets a panel test drives.
#pragma once
#include <memory>

#include <QElapsedTimer>

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

}  // namespace mixerlab::testing
