// How a failed `mixerlab launch` job ends: the launcher's message (the rank that ended first and how,
// or the stalled rank, core/distributed/rank_launcher.h) completed with what a resume would find,
// and recorded as the run's final status (status.json) and the last line of its log.txt. Rank 0's
// own status would otherwise say what it saw (a Gloo socket error when a peer died), or stay
// "running" when the launcher had to kill it. A run that finished or stopped keeps its status.
#pragma once
#include <string>

#include "core/distributed/rank_launcher.h"

namespace mixerlab {

// The complete message: the launcher's; rank 0's own failure reason in parentheses when the rank
// named exited on an error (not by a signal, not stalled); then "The last checkpoint (step N) is
// kept: add --resume ..." when the run has one, else that nothing was checkpointed and the run
// restarts from step 0. When rank 0 reported its run folder, it is also written there (a write that
// fails is said in the message, never thrown). A job that did not fail gives its message unchanged.
std::string recordLaunchOutcome(const LaunchResult& result);

}  // namespace mixerlab
