// Stall detection over the ranks' heartbeats (see rank_watchdog.h).
#include "core/distributed/rank_watchdog.h"

#include <algorithm>

#include "core/distributed/rank_heartbeat.h"

namespace mixerlab {

namespace {
double secondsBetween(RankWatchdog::Clock::time_point earlier, RankWatchdog::Clock::time_point later) {
  return std::chrono::duration<double>(later - earlier).count();
}
}  // namespace

RankWatchdog::RankWatchdog(int ranks, double stall_timeout_s)
    : ranks_(static_cast<size_t>(std::max(ranks, 0))),
      stall_timeout_s_(stall_timeout_s > 0 ? std::max(stall_timeout_s, kMinimumStallTimeoutS) : 0) {}

void RankWatchdog::onStep(int rank, int64_t step, Clock::time_point now) {
  if (rank < 0 || rank >= static_cast<int>(ranks_.size())) return;
  Watched& watched = ranks_[static_cast<size_t>(rank)];
  if (!watched.step || *watched.step != step) {
    watched.step = step;
    watched.step_changed_at = now;
  }
  watched.last_beat_at = now;
}

void RankWatchdog::onEnded(int rank) {
  if (rank >= 0 && rank < static_cast<int>(ranks_.size())) ranks_[static_cast<size_t>(rank)] = Watched{};
}

double RankWatchdog::silenceLimitSeconds() {
  // A thread that sleeps between beats is woken within milliseconds, on a loaded machine too: four
  // beats missed in a row mean the process is not running at all.
  return 4 * std::chrono::duration<double>(kHeartbeatInterval).count();
}

std::optional<StalledRanks> RankWatchdog::check(Clock::time_point now) const {
  if (stall_timeout_s_ <= 0) return std::nullopt;
  const auto stalledFor = [&](const Watched& watched) {
    return watched.step ? secondsBetween(watched.step_changed_at, now) : 0.0;
  };
  if (std::none_of(ranks_.begin(), ranks_.end(), [&](const Watched& w) { return stalledFor(w) > stall_timeout_s_; })) {
    return std::nullopt;
  }
  // One rank past the timeout: every rank stuck with it for a good part of that time is a suspect
  // (the ranks' steps arrive a moment apart, so they do not pass the timeout in the same instant).
  std::vector<int> stalled, silent;
  for (size_t rank = 0; rank < ranks_.size(); ++rank) {
    const Watched& watched = ranks_[rank];
    if (stalledFor(watched) <= stall_timeout_s_ / 2) continue;
    stalled.push_back(static_cast<int>(rank));
    if (secondsBetween(watched.last_beat_at, now) > silenceLimitSeconds()) silent.push_back(static_cast<int>(rank));
  }
  StalledRanks blamed;
  blamed.silent = !silent.empty();
  if (blamed.silent) {
    blamed.ranks = silent;
  } else {
    int64_t lowest = *ranks_[static_cast<size_t>(stalled.front())].step;
    for (const int rank : stalled) lowest = std::min(lowest, *ranks_[static_cast<size_t>(rank)].step);
    for (const int rank : stalled) {
      if (*ranks_[static_cast<size_t>(rank)].step == lowest) blamed.ranks.push_back(rank);
    }
  }
  blamed.step = *ranks_[static_cast<size_t>(blamed.ranks.front())].step;
  for (const int rank : blamed.ranks) {
    const Watched& watched = ranks_[static_cast<size_t>(rank)];
    blamed.step = std::min(blamed.step, *watched.step);
    blamed.stalled_s = std::max(blamed.stalled_s, stalledFor(watched));
  }
  return blamed;
}

}  // namespace mixerlab
