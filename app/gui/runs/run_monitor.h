// The one poller of a project's runs, resident on a BackgroundJob thread (the main window's): tails
// each metrics.jsonl and reads status.json on a timer, and reports changes as RunSnapshot, which the
// job delivers to the GUI thread, so file reading never blocks it. It also watches the processes
// the GUI has just launched (watchLaunch) until their run has visibly started: a process that ends
// before its run writes a status was refused by the CLI, and the monitor reports the CLI's message,
// so no launch fails silently. When another project opens the job is stopped, and the reports it
// still had queued are dropped.
#pragma once
#include <QObject>
#include <QString>
#include <QTimer>
#include <map>
#include <memory>
#include <vector>

#include "app/gui/common/job_worker.h"
#include "app/gui/common/launched_process.h"
#include "app/gui/runs/run_snapshot.h"

namespace mixerlab {
class MetricsTail;
}

namespace mixerlab::gui {

class RunMonitor : public JobWorker {
  Q_OBJECT
 public:
  static constexpr int kGiveUpLaunchMs = 10 * 60 * 1000;  // a launch not started by then is no longer watched

  explicit RunMonitor(QString runs_directory, int interval_ms = 300);
  ~RunMonitor() override;

  void run() override;  // on the job's thread: polls now, then every interval
  void pollNow();
  // On the job's thread (BackgroundJob::post): watches the process launched for run folder `run`.
  // At a later poll exactly one of launchStarted (its status.json changed from launched.status_before;
  // reported before that poll's snapshot of the run) or launchFailed (the process ended first) follows,
  // or nothing after kGiveUpLaunchMs. The error file is removed then. Until then a run folder with
  // no status.json (the process is creating it) gets no snapshot.
  void watchLaunch(const QString& run, const mixerlab::gui::LaunchedProcess& launched);
  int watchedLaunches() const { return static_cast<int>(launches_.size()); }

 Q_SIGNALS:
  void runUpdated(const mixerlab::gui::RunSnapshot& snapshot);
  void launchStarted(const QString& run);
  void launchFailed(const QString& run, const QString& error);  // the CLI's message
  void runFolderRemoved(const QString& run);                    // a folder it had reported is gone from the runs folder

 private:
  struct Watched;
  struct Launch {
    QString run;
    LaunchedProcess process;
    qint64 launched_ms = 0;
  };
  // Reports the outcome of `run`'s watched launches given its status now; drops them.
  // `status`: the run's status.json as read now, null when there is none.
  void checkLaunches(const QString& run, const RunStatus* status);
  bool launchWatched(const QString& run) const;
  QString runs_directory_;
  int interval_ms_;
  QTimer* timer_ = nullptr;
  std::map<QString, std::unique_ptr<Watched>> runs_;
  std::vector<Launch> launches_;
};

}  // namespace mixerlab::gui
