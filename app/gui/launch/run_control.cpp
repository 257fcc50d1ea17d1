// The open project's runs as processes (see run_control.h).
#include "app/gui/launch/run_control.h"

#include <QFileInfo>

#include "app/gui/common/background_job.h"
#include "app/gui/launch/run_launcher.h"
#include "app/gui/launch/run_queue.h"
#include "app/gui/runs/run_monitor.h"

namespace mixerlab::gui {

RunControl::RunControl(QObject* parent)
    : QObject(parent), target_(makeLaunchTarget(LaunchTargetSpec::local())), target_spec_(LaunchTargetSpec::local()) {}

RunControl::~RunControl() { stopMonitor(); }

void RunControl::setTarget(const LaunchTargetSpec& spec) {
  auto target = makeLaunchTarget(spec);
  if (!target) return;
  target_ = std::move(target);
  target_spec_ = spec;
}

QString RunControl::targetName() const { return target_->name(); }

QString RunControl::openProject(const QString& project_file, const QString& runs_directory) {
  startMonitor(runs_directory);  // before the queue, which may launch a saved run at once for the monitor to watch
  delete queue_;
  queue_ = new RunQueue(makeLaunchTarget(target_spec_), project_file, runs_directory, this);
  connect(queue_, &RunQueue::started, this, &RunControl::queueStarted);
  connect(queue_, &RunQueue::launchFailed, this, &RunControl::launchFailed);
  connect(queue_, &RunQueue::launched, this, &RunControl::watchLaunch);
  connect(queue_, &RunQueue::leftQueue, this, &RunControl::leftQueue);
  return queue_->setStateFile(QFileInfo(project_file).absolutePath() + "/queue.json");
}

void RunControl::startMonitor(const QString& runs_directory) {
  stopMonitor();
  if (monitor_job_ == nullptr) monitor_job_ = new BackgroundJob("run-monitor", this);
  auto* monitor = new RunMonitor(runs_directory);
  monitor_job_->forward(monitor, &RunMonitor::runUpdated, [this](const RunSnapshot& snapshot) {
    if (queue_) queue_->onRunStateChanged(snapshot.run, snapshot.state, snapshot.status_stamp);
    Q_EMIT runUpdated(snapshot);
  });
  monitor_job_->forward(monitor, &RunMonitor::launchStarted, [this](const QString& run) { Q_EMIT launchStarted(run); });
  monitor_job_->forward(monitor, &RunMonitor::runFolderRemoved,
                        [this](const QString& run) { Q_EMIT runFolderRemoved(run); });
  monitor_job_->forward(monitor, &RunMonitor::launchFailed, [this](const QString& run, const QString& error) {
    Q_EMIT launchFailed(run, error);
    if (queue_) queue_->onLaunchFailed(run);
  });
  monitor_job_->startResident(monitor);
  monitor_ = monitor;
}

// The snapshots the stopped monitor still had queued are dropped: none of a previous project's runs
// reaches the next project's table or plot.
void RunControl::stopMonitor() {
  if (monitor_job_ != nullptr) monitor_job_->stop();
  monitor_ = nullptr;
}

// The monitor lives on its job's thread: the call runs there, and is dropped with the monitor.
void RunControl::watchLaunch(const QString& run, const LaunchedProcess& launched) {
  if (monitor_job_ == nullptr || !monitor_job_->isRunning() || monitor_ == nullptr) return;
  RunMonitor* monitor = monitor_;
  monitor_job_->post([monitor, run, launched] { monitor->watchLaunch(run, launched); });
}

QString RunControl::start(const QString& run, const QString& run_directory, const QStringList& arguments,
                          const QString& working_directory) {
  LaunchedProcess launched;
  launched.status_before = statusStamp(run_directory);
  const QString error = target_->start(arguments, working_directory, &launched);
  if (!error.isEmpty()) {
    Q_EMIT launchFailed(run, error);
    return error;
  }
  watchLaunch(run, launched);
  if (queue_) {
    queue_->takeOff(run, "it was started by hand");           // its turn would find it trained
    queue_->noteStartedOutside(run, launched.status_before);  // busy from now, not once it says running
  }
  return {};
}

}  // namespace mixerlab::gui
