// OpenMP thread-waiting policy for the CLI and the GUI. LibTorch's elementwise ops run on libgomp's
// threads and its matrix products on OpenBLAS's own threads; with libgomp's default (spinning) wait
// policy the two pools, and the GUI's own threads, fight over the cores:
//   - CLI training on 2 cores ran ~35% slower (measured with `mixerlab bench train`);
//   - inverting the demo mixer in the GUI ran ~7x slower than with OMP_WAIT_POLICY=PASSIVE
//     (100 steps at layer 4: ~4.5 s against ~0.6 s, 2 cores).
// libgomp reads OMP_WAIT_POLICY once, before main(), so both mains call this first: it re-executes
// the program once with OMP_WAIT_POLICY=PASSIVE (and MIXERLAB_NO_REEXEC=1, so it never loops, even
// if a later layer clears the policy). A policy the user already set is respected.
#pragma once

namespace mixerlab {

// Call first in main(), before anything starts a thread. Returns only if no re-exec was needed (or
// it failed, e.g. no /proc: the program then carries on with the default policy); otherwise the
// process image is replaced (same pid, same arguments).
void ensurePassiveOpenMpWait(char** argv);

}  // namespace mixerlab
