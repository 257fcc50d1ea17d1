// SIGINT / SIGTERM handlers of the CLI (see stop_signal.h).
#include "app/cli/stop_signal.h"

#include <csignal>

namespace mixerlab::cli {
namespace {
std::atomic<bool> g_stop_requested{false};

void onStopSignal(int) {
  g_stop_requested.store(true);
  std::signal(SIGINT, SIG_DFL);  // a second Ctrl-C ends the process at once
}
}  // namespace

std::atomic<bool>& stopRequested() { return g_stop_requested; }

void installStopSignalHandlers() {
  std::signal(SIGINT, onStopSignal);
  std::signal(SIGTERM, onStopSignal);
}

}  // namespace mixerlab::cli
