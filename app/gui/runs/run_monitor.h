// Watches a project's run directories from a worker thread: tails each metrics.jsonl and reads
// status.json on a timer, and reports changes as RunSnapshot through queued signals, so file reading
// never blocks the GUI thread.
#pragma once
#include <QObject>
#include <QString>
#include <QTimer>
#include <map>
#include <memory>

#include "app/gui/runs/run_snapshot.h"

namespace mixerlab {
class MetricsTail;
}

namespace mixerlab::gui {

class RunMonitor : public QObject {
  Q_OBJECT
 public:
  explicit RunMonitor(QString runs_directory, int interval_ms = 300);
  ~RunMonitor() override;

 public Q_SLOTS:
  void start();  // call in the worker thread (queued)
  void pollNow();

 Q_SIGNALS:
  void runUpdated(const mixerlab::gui::RunSnapshot& snapshot);

 private:
  struct Watched;
  QString runs_directory_;
  int interval_ms_;
  QTimer* timer_ = nullptr;
  std::map<QString, std::unique_ptr<Watched>> runs_;
};

}  // namespace mixerlab::gui
