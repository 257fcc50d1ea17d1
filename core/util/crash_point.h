// Fault injection for crash-safety tests: a named point in the code where the process can be made
// to SIGKILL itself, so a test can kill a run at an exact moment (half-way through writing a
// checkpoint, between pruning's rename and its deletes) instead of hoping a timed kill lands there.
//
//   MIXERLAB_CRASH_AT=NAME       the first time the process reaches crashPoint("NAME")
//   MIXERLAB_CRASH_AT=NAME@N     the N-th time (1-based)
//
// Unset (every normal run), crashPoint costs one cached pointer check. The kill is a real SIGKILL of
// the whole process: no destructor, handler or buffered write runs, as when the machine dies.
// The points are listed in docs/reliability.md ("Kill points").
#pragma once

namespace mixerlab {

// Kills the process (SIGKILL) when MIXERLAB_CRASH_AT names this point and this is the hit it asks for.
void crashPoint(const char* name);

}  // namespace mixerlab
