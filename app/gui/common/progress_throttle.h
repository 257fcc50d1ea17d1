// Rate limit for progress reports from a worker thread: inversion reports every descent step (up
// to hundreds a second), and each report sent is a queued event the GUI thread must handle, so
// workers send one only when `interval_ms` has passed since the last one sent (and always the
// last step of a layer, which the caller forces).
#pragma once
#include <chrono>

namespace mixerlab::gui {

class ProgressThrottle {
 public:
  explicit ProgressThrottle(int interval_ms) : interval_(interval_ms) {}

  // True (and restarts the interval) when a report is due, or when `force` is set.
  bool due(bool force = false) {
    const auto now = Clock::now();
    if (!force && sent_once_ && now - last_ < interval_) return false;
    last_ = now;
    sent_once_ = true;
    return true;
  }

 private:
  using Clock = std::chrono::steady_clock;
  std::chrono::milliseconds interval_;
  Clock::time_point last_{};
  bool sent_once_ = false;
};

}  // namespace mixerlab::gui
