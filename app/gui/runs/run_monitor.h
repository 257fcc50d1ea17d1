// Watches a project's run directories, resident on a BackgroundJob thread (the main window's): tails
// each metrics.jsonl and reads status.json on a timer, and reports changes as RunSnapshot, which the
// job delivers to the GUI thread, so file reading never blocks it. When another project opens the
// job is stopped, and the snapshots it still had queued are dropped.
#pragma once
#include <QObject>
#include <QString>
#include <QTimer>
#include <map>
#include <memory>

#include "app/gui/common/job_worker.h"
#include "app/gui/runs/run_snapshot.h"

namespace mixerlab {
class MetricsTail;
}

namespace mixerlab::gui {

class RunMonitor : public JobWorker {
  Q_OBJECT
 public:
  explicit RunMonitor(QString runs_directory, int interval_ms = 300);
  ~RunMonitor() override;

  void run() override;  // on the job's thread: polls now, then every interval
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
