// The run queue (see run_queue.h).
#include "app/gui/launch/run_queue.h"

#include <algorithm>

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>
#include <QTimer>

#include "app/gui/launch/run_launcher.h"
#include "core/runs/run_directory.h"
#include "core/runs/run_status.h"

namespace mixerlab::gui {

namespace {
constexpr int kDefaultStartupTimeoutMs = 300000;

}  // namespace

RunQueue::RunQueue(std::unique_ptr<LaunchTarget> target, QString project_file, QString runs_directory, QObject* parent)
    : QObject(parent),
      target_(std::move(target)),
      project_file_(std::move(project_file)),
      runs_dir_(std::move(runs_directory)),
      startup_timer_(new QTimer(this)) {
  startup_timer_->setSingleShot(true);
  startup_timer_->setInterval(kDefaultStartupTimeoutMs);
  connect(startup_timer_, &QTimer::timeout, this, &RunQueue::onStartupTimeout);
}

void RunQueue::setStartupTimeoutMs(int timeout_ms) { startup_timer_->setInterval(timeout_ms); }

RunQueue::~RunQueue() = default;

QString RunQueue::targetName() const { return target_ ? target_->name() : QString(); }

QString RunQueue::runDirectory(const QString& run) const { return QDir(runs_dir_).filePath(run); }

void RunQueue::enqueue(const QString& run, bool resume, const QString& run_id, const QString& fork_from) {
  const QString id = run_id.isEmpty() ? run : run_id;
  queue_.push_back({run, id, fork_from, resume, statusStamp(runDirectory(id))});
  changed();
  if (current_.isEmpty()) startNext();
}

bool RunQueue::takeOff(const QString& run_id, const QString& reason) {
  if (!remove(run_id)) return false;
  Q_EMIT leftQueue(run_id, reason);
  return true;
}

QStringList RunQueue::pending() const {
  QStringList names;
  for (const Entry& e : queue_) names << e.run_id;
  return names;
}

bool RunQueue::remove(const QString& run_id) {
  for (int i = 0; i < queue_.size(); ++i) {
    if (queue_[i].run_id == run_id) {
      queue_.removeAt(i);
      changed();
      return true;
    }
  }
  return false;
}

bool RunQueue::move(const QString& run_id, int delta) {
  for (int i = 0; i < queue_.size(); ++i) {
    if (queue_[i].run_id != run_id) continue;
    const int to = std::clamp(i + delta, 0, static_cast<int>(queue_.size()) - 1);
    if (to == i) return true;
    queue_.move(i, to);
    changed();
    return true;
  }
  return false;
}

void RunQueue::changed() {
  Q_EMIT queueChanged();
  if (state_file_.isEmpty()) return;
  QJsonArray entries;
  for (const Entry& e : queue_) {
    QJsonObject o{{"run", e.run}, {"run_id", e.run_id}, {"resume", e.resume}};
    if (!e.fork_from.isEmpty()) o["fork_from"] = e.fork_from;
    if (!e.status_when_queued.isEmpty()) o["status_when_queued"] = e.status_when_queued;
    entries.append(o);
  }
  QSaveFile file(state_file_);
  if (file.open(QIODevice::WriteOnly)) {
    file.write(QJsonDocument(QJsonObject{{"waiting", entries}}).toJson(QJsonDocument::Indented));
    file.commit();
  }
}

QString RunQueue::setStateFile(const QString& path) {
  state_file_ = path;
  QFile file(path);
  if (!file.exists()) return {};
  if (!file.open(QIODevice::ReadOnly)) return "cannot read the saved queue " + path + ": " + file.errorString();
  const QJsonDocument doc = QJsonDocument::fromJson(file.readAll());
  if (!doc.isObject()) return "the saved queue " + path + " is not valid JSON: its runs were not queued again";
  for (const QJsonValue& value : doc.object().value("waiting").toArray()) {
    const QJsonObject o = value.toObject();
    if (o.value("run").toString().isEmpty()) continue;
    queue_.push_back({o.value("run").toString(), o.value("run_id").toString(o.value("run").toString()),
                      o.value("fork_from").toString(), o.value("resume").toBool(),
                      o.value("status_when_queued").toString()});
  }
  if (!queue_.isEmpty()) {
    Q_EMIT queueChanged();
    if (current_.isEmpty()) startNext();
  }
  return {};
}

void RunQueue::noteStartedOutside(const QString& run_id, const QString& status_before) {
  if (run_id != current_) starting_outside_.insert(run_id, {QDateTime::currentMSecsSinceEpoch(), status_before});
}

QStringList RunQueue::startingOutside() const {
  QStringList runs;
  const qint64 now = QDateTime::currentMSecsSinceEpoch();
  for (auto it = starting_outside_.cbegin(); it != starting_outside_.cend(); ++it) {
    if (now - it->started_ms < startup_timer_->interval()) runs << it.key();
  }
  return runs;
}

void RunQueue::onRunStateChanged(const QString& run, RunState state, const QString& status_stamp) {
  // A run started by hand that reports any state but its first pending one is counted by its
  // status from now on (running) or is done.
  const auto outside = starting_outside_.constFind(run);
  if (outside != starting_outside_.cend() && state != RunState::Pending &&
      (status_stamp.isEmpty() || status_stamp != outside->status_before))
    starting_outside_.erase(outside);
  if (run != current_) {
    // Another run (one started by hand) ended: the target may be free for the next turn.
    if (current_.isEmpty() && !queue_.isEmpty() && state != RunState::Running) startNext();
    return;
  }
  if (!status_stamp.isEmpty() && status_stamp == current_status_before_) return;  // the run's previous life
  switch (state) {
    case RunState::Running:
      current_seen_running_ = true;
      break;
    case RunState::Finished:
    case RunState::Failed:
    case RunState::Stopped:
      finishCurrent();
      break;
    case RunState::Pending:
      break;
  }
}

QStringList RunQueue::runningRuns() const {
  QStringList running;
  for (const auto& dir : listRunDirectories(runs_dir_.toStdString())) {
    const auto status = readRunStatus(dir);
    if (status && status->resolvedForReader().state == RunState::Running) {
      running << QString::fromStdString(dir.filename().string());
    }
  }
  return running;
}

void RunQueue::onLaunchFailed(const QString& run) {
  if (starting_outside_.remove(run) > 0 && current_.isEmpty()) startNext();
  if (run == current_) finishCurrent();
}

void RunQueue::onStartupTimeout() {
  // No status written since the launch: the process is still preparing data (a project's first
  // run trains its tokenizer), or it hangs before writing one.
  if (current_.isEmpty() || current_seen_running_) return;
  const QString run = current_;
  finishCurrent();
  Q_EMIT launchFailed(run,
                      "the run wrote no status within " + QString::number(startup_timer_->interval() / 1000.0) + " s");
}

void RunQueue::finishCurrent() {
  current_.clear();
  current_seen_running_ = false;
  startup_timer_->stop();
  startNext();
}

void RunQueue::startNext() {
  // The target is busy with runs the queue did not start: the monitor's report of one of them
  // ending (onRunStateChanged) brings the next try.
  if (!queue_.isEmpty() && current_.isEmpty()) {
    QStringList busy = runningRuns() + startingOutside();
    busy.removeDuplicates();
    if (busy.size() >= max_running_) return;
  }
  while (current_.isEmpty() && !queue_.isEmpty()) {
    const Entry next = queue_.takeFirst();
    changed();
    const QString dir = runDirectory(next.run_id);
    if (!next.resume && RunPaths{dir.toStdString()}.hasRunInfo()) {
      // Trained since it was queued (by hand in another window, or the CLI): its turn is spent.
      if (statusStamp(dir) != next.status_when_queued) {
        Q_EMIT leftQueue(next.run_id, "it was trained outside the queue since it was queued");
      } else {
        Q_EMIT launchFailed(next.run_id, "run directory " + dir + " already exists (queue it with resume)");
      }
      continue;
    }
    if (!next.fork_from.isEmpty() && !QFileInfo(next.fork_from).isDir()) {
      Q_EMIT launchFailed(next.run_id, "no checkpoint folder " + next.fork_from);
      continue;
    }
    const QString run_id = next.run_id == next.run ? QString() : next.run_id;
    const QStringList arguments = trainArguments(project_file_, next.run, next.resume, run_id, next.fork_from);
    LaunchedProcess process;
    process.status_before = statusStamp(dir);
    const QString error = target_ ? target_->start(arguments, QFileInfo(project_file_).absolutePath(), &process)
                                  : QString("no launch target");
    if (!error.isEmpty()) {
      Q_EMIT launchFailed(next.run_id, error);
      continue;
    }
    current_ = next.run_id;
    current_status_before_ = process.status_before;
    current_seen_running_ = false;
    startup_timer_->start();
    Q_EMIT launched(next.run_id, process);
    Q_EMIT started(next.run_id);
  }
}

}  // namespace mixerlab::gui
