// One-time re-exec with OMP_WAIT_POLICY=PASSIVE (see openmp_wait.h).
#include "app/gui/shell/openmp_wait.h"

#include <unistd.h>

#include <cstdlib>

namespace mixerlab::gui {

void ensurePassiveOpenMpWait(char** argv) {
  if (std::getenv("OMP_WAIT_POLICY") != nullptr || std::getenv("MIXERLAB_NO_REEXEC") != nullptr) return;
  ::setenv("OMP_WAIT_POLICY", "PASSIVE", 1);
  ::setenv("MIXERLAB_NO_REEXEC", "1", 1);  // never loop, even if a later layer clears the policy
  ::execv("/proc/self/exe", argv);
  // execv failed (e.g. no /proc): carry on with the default policy.
}

}  // namespace mixerlab::gui
