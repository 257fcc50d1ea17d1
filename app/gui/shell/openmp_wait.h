// OpenMP thread-waiting policy for the GUI process, which runs LibTorch in-process for generation
// and inversion. With libgomp's default (spinning) wait policy, its threads fight OpenBLAS's threads
// and the GUI's own for the cores: inverting the demo mixer ran ~7x slower in the GUI than with
// OMP_WAIT_POLICY=PASSIVE (100 steps at layer 4: ~4.5 s against ~0.6 s, 2 cores). libgomp reads
// the policy once, before main(), so main() sets it and re-executes itself once, as the CLI does
// (app/cli/openmp_env.h; the GUI does not link the CLI). A policy the user already set is respected.
#pragma once

namespace mixerlab::gui {

// Returns only if no re-exec was needed (or it failed); otherwise the process image is replaced.
void ensurePassiveOpenMpWait(char** argv);

}  // namespace mixerlab::gui
