// The CLI's graceful stop: SIGINT and SIGTERM set one flag that long work (training, data preparation)
// polls and ends on, keeping what it finished; a second Ctrl-C ends the process at once.
#pragma once
#include <atomic>

namespace mixerlab::cli {

std::atomic<bool>& stopRequested();
void installStopSignalHandlers();

}  // namespace mixerlab::cli
