// A probe for GUI responsiveness: a 10 ms timer on the GUI thread records how late each tick
// fires. Lateness is time the event loop spent busy elsewhere (reading metrics, replotting), so
// its max and 99th percentile tell whether anything blocked the GUI thread for long.
#pragma once
#include <QElapsedTimer>
#include <QObject>
#include <vector>

class QTimer;

namespace mixerlab::gui {

class EventLoopLatency : public QObject {
  Q_OBJECT
 public:
  explicit EventLoopLatency(QObject* parent = nullptr);

  void start();  // starts (or restarts) sampling; call on the GUI thread
  void stop();
  void reset();  // forgets the samples taken so far
  double maxLatencyMs() const;
  double p99LatencyMs() const;
  int sampleCount() const { return static_cast<int>(late_ms_.size()); }
  static constexpr int kIntervalMs = 10;

 private:
  void onTick();

  QTimer* timer_ = nullptr;
  QElapsedTimer clock_;
  qint64 last_tick_ns_ = -1;
  std::vector<double> late_ms_;  // lateness of each tick beyond kIntervalMs
};

}  // namespace mixerlab::gui
