// OpenMP thread-waiting policy for CPU training. LibTorch's elementwise ops run on libgomp threads
// and its matrix products on OpenBLAS's own threads; with libgomp's default (spinning) wait policy
// the two pools fight over the cores and training on 2 cores ran ~35% slower (measured with
// `mixerlab bench train`). libgomp reads OMP_WAIT_POLICY once, before main(), so the CLI sets it and
// re-executes itself once. A policy the user already set is respected.
#pragma once

namespace mixerlab::cli {

// Returns only if no re-exec was needed (or it failed); otherwise the process image is replaced.
void ensurePassiveOpenMpWait(int argc, char** argv);

}  // namespace mixerlab::cli
