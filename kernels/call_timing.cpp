// Mean milliseconds of a call after a warm-up (see call_timing.h).
#include "kernels/call_timing.h"

#include <algorithm>
#include <chrono>

namespace mixerlab::kernels {

double meanCallMs(const std::function<void()>& call, int repeats, const CallTimingLimits& limits) {
  using Clock = std::chrono::steady_clock;
  using Ms = std::chrono::duration<double, std::milli>;
  const auto first = Clock::now();
  call();
  const double first_ms = Ms(Clock::now() - first).count();
  if (first_ms > limits.slow_call_ms) return first_ms;
  double total_ms = 0;
  int runs = 0;
  while (runs < std::max(1, repeats) && (runs == 0 || total_ms < limits.budget_ms)) {
    const auto start = Clock::now();
    call();
    total_ms += Ms(Clock::now() - start).count();
    ++runs;
  }
  return total_ms / runs;
}

}  // namespace mixerlab::kernels
