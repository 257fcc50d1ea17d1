// The open project's runs as processes: the launch target new runs start on, the run monitor (the
// one poller of the run folders, on its own BackgroundJob thread), the run queue, and starting a
// run with the monitor watching its launch. The main window shows what it reports (snapshots,
// launches that started or failed) and asks it to start runs; nothing here draws.
#pragma once
#include <QObject>
#include <QString>
#include <QStringList>
#include <memory>

#include "app/gui/common/launched_process.h"
#include "app/gui/launch/launch_target_spec.h"
#include "app/gui/runs/run_snapshot.h"

namespace mixerlab::gui {

class BackgroundJob;
class LaunchTarget;
class RunMonitor;
class RunQueue;

class RunControl : public QObject {
  Q_OBJECT
 public:
  explicit RunControl(QObject* parent = nullptr);
  ~RunControl() override;  // stops the monitor; the runs go on (they are separate processes)

  // Another project (or the same one again): stops the monitor (the reports it still had queued are
  // dropped), starts one over `runs_directory`, then a queue of `project_file` on the current target
  // reading the saved queue next to the project. Returns the saved queue's error, empty otherwise.
  QString openProject(const QString& project_file, const QString& runs_directory);
  void stopMonitor();

  // Where runs start from now on (the queue keeps the target it was made with until the next
  // openProject). A spec that cannot launch keeps the previous target.
  void setTarget(const LaunchTargetSpec& spec);
  QString targetName() const;
  RunQueue* queue() const { return queue_; }

  // Starts `mixerlab <arguments>` for run folder `run_directory` (named `run` in the reports) on the
  // target, in `working_directory`, and has the monitor watch the launch. Returns the target's
  // error (also reported through launchFailed), empty on success.
  QString start(const QString& run, const QString& run_directory, const QStringList& arguments,
                const QString& working_directory);

 Q_SIGNALS:
  void runUpdated(const mixerlab::gui::RunSnapshot& snapshot);  // the queue has heard it first
  void launchStarted(const QString& run);                       // its run wrote its first status
  void runFolderRemoved(const QString& run);                    // deleted or moved outside MixerLab
  // A launch that did not start: the target's error, the CLI's refusal, or the queue's own finding.
  void launchFailed(const QString& run, const QString& error);
  void queueStarted(const QString& run);
  void leftQueue(const QString& run, const QString& reason);  // RunQueue::leftQueue

 private:
  void startMonitor(const QString& runs_directory);
  void watchLaunch(const QString& run, const LaunchedProcess& launched);

  std::unique_ptr<LaunchTarget> target_;
  LaunchTargetSpec target_spec_;
  BackgroundJob* monitor_job_ = nullptr;
  RunMonitor* monitor_ = nullptr;  // the monitor job's worker (it lives on the job's thread)
  RunQueue* queue_ = nullptr;
};

}  // namespace mixerlab::gui
