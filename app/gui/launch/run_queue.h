// A queue of training runs for one launch target: runs wait their turn and the next one starts
// when the run the queue started last is no longer running and no other run of the project is
// running on the target (one started by hand, say), so a machine trains one run at a time and
// throughput and wall-clock figures are not distorted by runs sharing the cores (setMaxRunning
// allows more). The queue reads no files on a timer: the run monitor (runs/run_monitor.h), the one
// poller of the project's runs, tells it every run's state (onRunStateChanged) and the launches that
// ended before their run started (onLaunchFailed), and watches the processes the queue launches
// (the launched signal). The runs running now are read once when a turn would start. With a state
// file set, the waiting entries are saved there on every change (atomically) and read back when
// the project is opened again, so a queue survives a restart of the workbench.
#pragma once
#include <QHash>
#include <QObject>
#include <QString>
#include <QStringList>
#include <QVector>
#include <memory>

#include "app/gui/common/launched_process.h"
#include "core/runs/run_status.h"

class QTimer;

namespace mixerlab::gui {

class LaunchTarget;

class RunQueue : public QObject {
  Q_OBJECT
 public:
  // Runs of `project_file` are launched on `target`; their directories are runs_directory/<run>.
  RunQueue(std::unique_ptr<LaunchTarget> target, QString project_file, QString runs_directory,
           QObject* parent = nullptr);
  ~RunQueue() override;

  // Adds a run (resume: continue its latest checkpoint; run_id: its folder name, default the run
  // name; fork_from: a checkpoint folder to fork from, see trainArguments); starts it at once when
  // nothing is running. Queue entries are named by run id.
  void enqueue(const QString& run, bool resume, const QString& run_id = {}, const QString& fork_from = {});
  QStringList pending() const;  // waiting run ids, next first
  struct Waiting {
    QString run, run_id, fork_from;  // project run, its folder name, a checkpoint to fork from
    bool resume = false;
    QString status_when_queued;  // the run folder's status stamp at enqueue (statusStamp); empty: none
  };
  QVector<Waiting> waiting() const { return queue_; }  // next first
  // Moves a waiting run up (delta < 0) or down the queue; false if it is not waiting.
  bool move(const QString& run_id, int delta);
  // Where the waiting entries are kept (<project>/queue.json); reads the entries saved there and
  // starts the first when the target is free. Returns an error naming the file, empty otherwise.
  QString setStateFile(const QString& path);
  bool remove(const QString& run_id);  // drops a waiting run; false if it was not queued
  // A waiting run started outside the queue (Train by hand): it leaves the queue, with leftQueue
  // saying why. False if it was not waiting.
  bool takeOff(const QString& run_id, const QString& reason);
  QString current() const { return current_; }  // the run id the queue started that still runs, or empty
  QString targetName() const;
  // A launched run that writes no status within this time is taken as failed to start.
  void setStartupTimeoutMs(int timeout_ms);
  // How many runs of the project may run on the target at once, counting ones started by hand (1).
  void setMaxRunning(int runs) { max_running_ = runs; }
  // The runs of the project's runs folder that are running now (status.json, a live process).
  QStringList runningRuns() const;
  // A run started outside the queue (Train by hand) is busy from its launch, not only once its
  // status says running: until the monitor reports it running, ended or failed (or the startup
  // timeout passes) the queue counts it, so its data preparation is never taken for a free target.
  // Reports of the status written at `status_before` (its previous life) do not count.
  void noteStartedOutside(const QString& run_id, const QString& status_before = {});
  QStringList startingOutside() const;  // those runs, for the count

 public Q_SLOTS:
  // From the run monitor (run = run id): the run's state, read from the status.json written at
  // `status_stamp`. The current run's state counts once its stamp differs from the one before its
  // launch (a stale report of the run's previous life never ends its turn); "" always counts. When
  // another run stops running, a waiting queue tries its next turn.
  void onRunStateChanged(const QString& run, RunState state, const QString& status_stamp = {});
  // From the run monitor: the process launched for `run` ended before the run started (the monitor
  // reports the CLI's message itself). The queue moves on.
  void onLaunchFailed(const QString& run);

 Q_SIGNALS:
  void started(const QString& run);
  // A launch the queue itself saw fail: the target refused it, the run folder exists, no status came.
  void launchFailed(const QString& run, const QString& error);
  void queueChanged();
  // A waiting run left the queue without being launched by it: started by hand, or trained outside
  // the queue (another window, the CLI) since it was queued. Never a failure.
  void leftQueue(const QString& run, const QString& reason);
  // A process was launched for run folder `run`: for the run monitor's watchLaunch.
  void launched(const QString& run, const mixerlab::gui::LaunchedProcess& process);

 private:
  using Entry = Waiting;
  void changed();  // emits queueChanged and saves the state file
  void onStartupTimeout();
  void finishCurrent();
  void startNext();
  QString runDirectory(const QString& run) const;

  std::unique_ptr<LaunchTarget> target_;
  QString project_file_, runs_dir_, state_file_;
  QVector<Entry> queue_;
  QString current_;
  QString current_status_before_;  // status.json's updated_at before the launch ("" if none)
  bool current_seen_running_ = false;
  QTimer* startup_timer_ = nullptr;  // 300 s by default: the first run of a project trains its tokenizer first
  int max_running_ = 1;
  struct StartedOutside {
    qint64 started_ms = 0;  // since the epoch
    QString status_before;
  };
  QHash<QString, StartedOutside> starting_outside_;
};

}  // namespace mixerlab::gui
