// LaunchWatcher (see launch_watcher.h).
#include "app/gui/launch/launch_watcher.h"

#include <signal.h>

#include <cerrno>

#include <QDateTime>
#include <QFile>

#include "core/runs/run_status.h"

namespace mixerlab::gui {

namespace {
QString statusStamp(const QString& run_directory) {
  const auto status = readRunStatus(run_directory.toStdString());
  return status ? QString::fromStdString(status->updated_at) : QString();
}

bool processAlive(qint64 pid) { return pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM); }
}  // namespace

QString cliErrorMessage(const QString& error_file) {
  QFile file(error_file);
  if (!file.open(QIODevice::ReadOnly)) return {};
  const QStringList lines = QString::fromUtf8(file.readAll()).split('\n', Qt::SkipEmptyParts);
  QStringList picked;
  for (const QString& line : lines) {
    if (line.startsWith("error:") || line.startsWith("fix:")) picked << line.trimmed();
  }
  if (picked.isEmpty()) picked = lines.mid(std::max<qsizetype>(0, lines.size() - 5));
  return picked.join('\n');
}

LaunchWatcher::LaunchWatcher(QObject* parent) : QObject(parent) {
  timer_.setInterval(kPollMs);
  connect(&timer_, &QTimer::timeout, this, &LaunchWatcher::poll);
}

LaunchWatcher::~LaunchWatcher() {
  for (const Launch& l : launches_) QFile::remove(l.process.error_file);
}

void LaunchWatcher::watch(const QString& run, const QString& run_directory, const LaunchedProcess& launched) {
  if (launched.pid <= 0) return;  // a target that gives no process to watch
  launches_.push_back({run, run_directory, launched, statusStamp(run_directory), QDateTime::currentMSecsSinceEpoch()});
  timer_.start();
}

void LaunchWatcher::poll() {
  for (int i = static_cast<int>(launches_.size()) - 1; i >= 0; --i) {
    const Launch l = launches_[i];
    const bool status_written = statusStamp(l.run_directory) != l.status_before;
    const bool alive = processAlive(l.process.pid);
    const bool expired = QDateTime::currentMSecsSinceEpoch() - l.launched_ms > kGiveUpMs;
    if (!status_written && alive && !expired) continue;
    launches_.removeAt(i);
    if (status_written) {
      Q_EMIT started(l.run);
    } else if (!alive) {
      QString message = cliErrorMessage(l.process.error_file);
      if (message.isEmpty()) message = "the mixerlab process ended before the run started, without a message";
      Q_EMIT launchFailed(l.run, message);
    }
    QFile::remove(l.process.error_file);
  }
  if (launches_.isEmpty()) timer_.stop();
}

}  // namespace mixerlab::gui
