// Run directory watcher (see run_monitor.h). What a run's numbers mean (best eval loss, last
// throughput) is decided by core/runs' RunSummary; this file only turns it into RunSnapshots.
#include "app/gui/runs/run_monitor.h"

#include <QDateTime>
#include <QFile>
#include <QSet>
#include <filesystem>

#include "core/runs/metrics_log.h"
#include "core/runs/run_directory.h"
#include "core/runs/run_info.h"
#include "core/runs/run_summary.h"
#include "core/util/subprocess.h"

namespace mixerlab::gui {

struct RunMonitor::Watched {
  explicit Watched(const std::filesystem::path& dir) : tail(RunPaths{dir}.metrics()) {}
  MetricsTail tail;
  RunSummary summary;                   // fed the tailed records and the status on every poll
  bool has_run_info = false;            // run.json read (it is written once at start)
  double training_flops_per_token = 0;  // from run.json, for the FLOPs axis
  bool logs_lr = false;  // a positive learning rate was logged: a later 0 is the schedule's end, not "none"
  QByteArray run_config_json;
  std::optional<RunState> last_state;  // nullopt until the first snapshot
  QString last_reason;
  qint64 last_step = -1;
};

RunMonitor::RunMonitor(QString runs_directory, int interval_ms)
    : runs_directory_(std::move(runs_directory)), interval_ms_(interval_ms) {}

RunMonitor::~RunMonitor() {
  for (const Launch& launch : launches_) QFile::remove(launch.process.error_file);
}

void RunMonitor::run() {
  timer_ = new QTimer(this);
  connect(timer_, &QTimer::timeout, this, &RunMonitor::pollNow);
  timer_->start(interval_ms_);
  pollNow();
}

void RunMonitor::watchLaunch(const QString& run, const LaunchedProcess& launched) {
  if (launched.pid <= 0) return;  // a target that gives no process to watch
  launches_.push_back({run, launched, QDateTime::currentMSecsSinceEpoch()});
}

void RunMonitor::checkLaunches(const QString& run, const RunStatus* status) {
  const QString status_stamp = status ? QString::fromStdString(status->updated_at) : QString();
  const qint64 now_ms = QDateTime::currentMSecsSinceEpoch();
  for (auto it = launches_.begin(); it != launches_.end();) {
    if (it->run != run) {
      ++it;
      continue;
    }
    // A status written since the launch is its start, unless another process of this host wrote
    // it: a second window's Train on a run already training (the run lock refuses this launch).
    const bool status_written = status_stamp != it->process.status_before &&
                                !(it->process.trainer_descends && it->process.pid > 0 && status && status->pid > 0 &&
                                  status->host == hostName() && !processDescendsFrom(status->pid, it->process.pid));
    const bool alive = processAlive(it->process.pid);
    if (!status_written && alive && now_ms - it->launched_ms <= kGiveUpLaunchMs) {
      ++it;
      continue;
    }
    if (status_written) {
      Q_EMIT launchStarted(run);
    } else if (!alive) {
      QString message = cliErrorMessage(it->process.error_file);
      if (message.isEmpty()) message = "the mixerlab process ended before the run started, without a message";
      Q_EMIT launchFailed(run, message);
    }
    QFile::remove(it->process.error_file);
    it = launches_.erase(it);
  }
}

bool RunMonitor::launchWatched(const QString& run) const {
  for (const Launch& launch : launches_)
    if (launch.run == run) return true;
  return false;
}

void RunMonitor::pollNow() {
  // Launches whose run folder does not exist yet, or holds no record yet (listRunDirectories leaves
  // it out): only the process can have ended.
  QStringList without_folder;
  for (const Launch& launch : launches_) {
    const QString folder = runs_directory_ + "/" + launch.run;
    if (!without_folder.contains(launch.run) && !RunPaths{folder.toStdString()}.holdsRunRecords())
      without_folder << launch.run;
  }
  for (const QString& run : without_folder) checkLaunches(run, nullptr);
  const auto dirs = listRunDirectories(runs_directory_.toStdString());
  // Folders that were watched and are gone (deleted or moved outside MixerLab): said once; a folder
  // that comes back is read anew.
  QSet<QString> present;
  for (const std::filesystem::path& dir : dirs) present.insert(QString::fromStdString(dir.filename().string()));
  for (auto it = runs_.begin(); it != runs_.end();) {
    if (present.contains(it->first)) {
      ++it;
      continue;
    }
    const QString gone = it->first;
    it = runs_.erase(it);
    Q_EMIT runFolderRemoved(gone);
  }
  for (const std::filesystem::path& dir : dirs) {
    const QString name = QString::fromStdString(dir.filename().string());
    // A folder a watched launch is still creating (no status.json yet) gets no snapshot until the
    // launch is decided: a launched run's first word is launchStarted or launchFailed.
    if (launchWatched(name) && !std::filesystem::exists(RunPaths{dir}.status())) {
      checkLaunches(name, nullptr);
      if (launchWatched(name)) continue;
    }
    auto& watched = runs_[name];
    if (!watched) watched = std::make_unique<Watched>(dir);
    if (!watched->has_run_info) {  // before the records: FLOPs need it
      if (const auto info = tryReadRunInfo(dir)) {
        watched->has_run_info = true;
        watched->summary.applyRunInfo(*info);
        watched->training_flops_per_token = info->training_flops_per_token;
        watched->run_config_json = QByteArray::fromStdString(info->run.toJson().dump());
      } else if (const auto retrieval = tryReadRetrievalRunRecord(dir)) {
        // A retrieval-model run: its x axis is pairs seen and it has no FLOPs figure. Re-read until
        // its epochs are recorded, so the final record is the one kept.
        watched->summary.applyRetrievalRun(*retrieval);
        watched->has_run_info = !retrieval->epochs.empty();
      }
    }
    RunSnapshot snap;
    snap.run = name;
    const auto records = watched->tail.poll();
    snap.reset = watched->tail.wasReset();
    if (snap.reset) {
      watched->summary.resetMetrics();
      watched->last_step = -1;
    }
    for (const auto& r : records) {
      widgets::LossPoint p{static_cast<double>(r.step), static_cast<double>(r.tokens), r.wall_s, 0};
      p.flops = static_cast<double>(r.tokens) * watched->training_flops_per_token;
      if (r.train_loss) {
        p.loss = *r.train_loss;
        snap.new_train.push_back(p);
      }
      if (r.eval_loss) {
        p.loss = *r.eval_loss;
        snap.new_eval.push_back(p);
      }
      auto metric = [&](const QString& name, double value) {
        p.loss = value;
        snap.new_metrics[name].push_back(p);
      };
      watched->logs_lr = watched->logs_lr || r.learning_rate > 0;
      if (watched->logs_lr) metric("lr", r.learning_rate);  // retrieval runs log none
      if (r.tokens_per_s > 0) metric("tokens_per_s", r.tokens_per_s);
      if (r.grad_norm) metric("grad_norm", *r.grad_norm);
      for (const auto& [name, value] : r.extra_metrics) metric(QString::fromStdString(name), value);
      watched->summary.add(r);
    }
    const auto status = readRunStatus(dir);
    RunStatus shown = status ? *status : RunStatus{};
    // Status files are replaced whole (rewritten in place only on a full disk), so one that does not
    // parse is damaged, not half-written.
    if (!status && std::filesystem::exists(RunPaths{dir}.status())) {
      shown.reason = "status.json cannot be read (damaged?): the run's state is unknown";
    }
    watched->summary.applyStatus(shown);
    // Before the snapshot: a queue hears that its launch started before it hears the run's state.
    checkLaunches(name, status ? &*status : nullptr);
    const RunSummary& summary = watched->summary;
    snap.state = summary.state;
    snap.reason = QString::fromStdString(summary.reason);
    snap.status_stamp = status ? QString::fromStdString(status->updated_at) : QString();
    snap.arch = QString::fromStdString(summary.arch);
    snap.device = QString::fromStdString(summary.device);
    snap.run_config_json = watched->run_config_json;
    snap.step = summary.step;
    snap.tokens = summary.tokens;
    snap.wall_s = summary.wall_s;
    snap.tokens_per_s = summary.tokens_per_s;
    snap.best_eval_loss = summary.best_eval_loss ? *summary.best_eval_loss : -1;
    const bool changed = !records.empty() || snap.reset || snap.state != watched->last_state ||
                         snap.reason != watched->last_reason || snap.step != watched->last_step;
    if (!changed) continue;
    watched->last_state = snap.state;
    watched->last_reason = snap.reason;
    watched->last_step = snap.step;
    Q_EMIT runUpdated(snap);
  }
}

}  // namespace mixerlab::gui
