// One-time re-exec with OMP_WAIT_POLICY=PASSIVE (see openmp_wait.h).
#include "core/util/openmp_wait.h"

#include "core/util/subprocess.h"
#include "kernels/environment/process_environment.h"

namespace mixerlab {

void ensurePassiveOpenMpWait(char** argv) {
  if (argv == nullptr || argv[0] == nullptr) return;
  using kernels::EnvironmentVariable;
  if (kernels::environmentValue(EnvironmentVariable::kOpenMpWaitPolicy) ||
      kernels::environmentValue(EnvironmentVariable::kNoReexec)) {
    return;
  }
  SubprocessSpec self;
  self.program = "/proc/self/exe";
  self.argv0 = argv[0];
  for (char** arg = argv + 1; *arg != nullptr; ++arg) self.args.emplace_back(*arg);
  self.env = {{"OMP_WAIT_POLICY", "PASSIVE"}, {"MIXERLAB_NO_REEXEC", "1"}};
  replaceProcessImage(self);  // returns only when it failed: carry on with the default policy
}

}  // namespace mixerlab
