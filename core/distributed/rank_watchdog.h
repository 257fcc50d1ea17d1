// The launcher's watch over its ranks' heartbeats (rank_heartbeat.h): a rank is watched from its
// first heartbeat (its first training step) on, and has stalled when its step has not changed for the
// stall timeout. In a data-parallel job one stuck rank soon holds every other in a collective, so
// all of them stall: when one passes the timeout, the suspects are the ranks stuck for more than half
// of it, and the ones to blame are those of them that fell silent too (frozen whole: stopped by
// SIGSTOP, or no longer scheduled), else those at the lowest step. Time is passed in, so the rules
// are plain arithmetic. No Qt, no torch.
#pragma once
#include <chrono>
#include <cstdint>
#include <optional>
#include <vector>

namespace mixerlab {

struct StalledRanks {
  std::vector<int> ranks;  // the local ranks to blame, in order
  bool silent = false;     // they sent no heartbeat either for a while
  int64_t step = 0;        // the lowest step they are at
  double stalled_s = 0;    // the longest any of them has made no progress
};

inline constexpr double kMinimumStallTimeoutS = 3;

class RankWatchdog {
 public:
  using Clock = std::chrono::steady_clock;
  // stall_timeout_s <= 0: it never fires; a shorter one than kMinimumStallTimeoutS is raised to it
  // (a rank must have stalled longer than silenceLimitSeconds() before its silence can be told).
  RankWatchdog(int ranks, double stall_timeout_s);

  // A heartbeat of local rank `rank` at `now` that says it reached `step`.
  void onStep(int rank, int64_t step, Clock::time_point now);
  // Local rank `rank` has ended: it is no longer watched.
  void onEnded(int rank);
  // The ranks to blame when one has made no progress for longer than the stall timeout, else nullopt.
  std::optional<StalledRanks> check(Clock::time_point now) const;
  // How long a watched rank may send no heartbeat before it counts as silent (frozen whole).
  static double silenceLimitSeconds();

 private:
  struct Watched {
    std::optional<int64_t> step;  // none before its first heartbeat: not watched yet
    Clock::time_point step_changed_at, last_beat_at;
  };
  std::vector<Watched> ranks_;
  double stall_timeout_s_;
};

}  // namespace mixerlab
