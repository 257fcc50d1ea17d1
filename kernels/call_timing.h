// Timing one call for the benchmarks: the mean wall-clock milliseconds of a callable after one
// untimed warm-up call, over at most `repeats` calls and a time budget. A warm-up call slower than
// `slow_call_ms` is the answer itself: its one-time costs are lost in it, and timing it again would
// only make slow modes take minutes. No synchronisation: the callable must finish its own work
// (a CUDA caller synchronises inside it).
#pragma once

#include <functional>

namespace mixerlab::kernels {

struct CallTimingLimits {
  double slow_call_ms = 1000;  // a warm-up call above this is timed once, as the answer
  double budget_ms = 3000;     // timed calls stop once their total passes this (at least one runs)
};

double meanCallMs(const std::function<void()>& call, int repeats, const CallTimingLimits& limits = {});

}  // namespace mixerlab::kernels
