// The event-loop latency probe (see event_loop_latency.h).
#include "app/gui/tooling/event_loop_latency.h"

#include <QTimer>
#include <algorithm>
#include <cmath>

namespace mixerlab::gui {

namespace {
constexpr size_t kMaxSamples = 1 << 20;  // ~3 hours of 10 ms ticks
}

EventLoopLatency::EventLoopLatency(QObject* parent) : QObject(parent), timer_(new QTimer(this)) {
  timer_->setTimerType(Qt::PreciseTimer);
  timer_->setInterval(kIntervalMs);
  connect(timer_, &QTimer::timeout, this, &EventLoopLatency::onTick);
}

void EventLoopLatency::start() {
  clock_.start();
  last_tick_ns_ = clock_.nsecsElapsed();
  timer_->start();
}

void EventLoopLatency::stop() { timer_->stop(); }

void EventLoopLatency::reset() {
  late_ms_.clear();
  if (timer_->isActive()) last_tick_ns_ = clock_.nsecsElapsed();
}

void EventLoopLatency::onTick() {
  const qint64 now_ns = clock_.nsecsElapsed();
  const double since_last_ms = static_cast<double>(now_ns - last_tick_ns_) / 1e6;
  last_tick_ns_ = now_ns;
  if (late_ms_.size() < kMaxSamples) late_ms_.push_back(std::max(0.0, since_last_ms - kIntervalMs));
}

double EventLoopLatency::maxLatencyMs() const {
  return late_ms_.empty() ? 0.0 : *std::max_element(late_ms_.begin(), late_ms_.end());
}

double EventLoopLatency::p99LatencyMs() const {
  if (late_ms_.empty()) return 0.0;
  std::vector<double> sorted = late_ms_;
  const size_t index = std::min(sorted.size() - 1, static_cast<size_t>(std::ceil(0.99 * sorted.size())) - 1);
  std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(index), sorted.end());
  return sorted[index];
}

}  // namespace mixerlab::gui
