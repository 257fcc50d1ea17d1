// Launching and stopping CLI training processes (see run_launcher.h).
#include "app/gui/run_launcher.h"

#include <unistd.h>

#include <algorithm>

#include <QRegularExpression>
#include <QThread>

#include "core/train/device.h"

#include <signal.h>

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QStandardPaths>
#include <QUuid>

#include "core/runs/run_status.h"

namespace mixerlab::gui {

QString findCliExecutable() {
  const QString overridden = qEnvironmentVariable("MIXERLAB_CLI");
  if (!overridden.isEmpty() && QFileInfo(overridden).isExecutable()) return overridden;
  const QString dir = QCoreApplication::applicationDirPath();
  for (const QString& candidate : {dir + "/mixerlab", dir + "/../cli/mixerlab"}) {
    if (QFileInfo(candidate).isExecutable()) return QFileInfo(candidate).canonicalFilePath();
  }
  return QStandardPaths::findExecutable("mixerlab");
}

QStringList trainArguments(const QString& project_file, const QString& run_name, bool resume, const QString& run_id,
                           const QString& fork_from) {
  QStringList args{"train", project_file, "--run", run_name};
  if (resume) args << "--resume";
  if (!run_id.isEmpty()) args << "--run-id" << run_id;
  if (!fork_from.isEmpty()) args << "--fork-from" << fork_from;
  return args;
}

QStringList launchTargetNames() { return {"local", "local, 2 ranks"}; }

std::unique_ptr<LaunchTarget> makeLaunchTarget(const QString& name) {
  if (name == "local") return std::make_unique<LocalLaunchTarget>(findCliExecutable());
  static const QRegularExpression ranks_pattern("^local, (\\d+) ranks$");
  if (const auto match = ranks_pattern.match(name); match.hasMatch() && match.captured(1).toInt() >= 2) {
    return std::make_unique<LocalDataParallelTarget>(findCliExecutable(), match.captured(1).toInt());
  }
  return nullptr;
}

QString LocalDataParallelTarget::name() const { return "local, " + QString::number(ranks_) + " ranks"; }

QString LocalDataParallelTarget::start(const QStringList& arguments, const QString& working_directory,
                                       LaunchedProcess* launched) {
  return local_.start(QStringList{"launch", "--nproc", QString::number(ranks_), "--"} + arguments, working_directory,
                      launched);
}

QString machineDescription() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page_size = ::sysconf(_SC_PAGE_SIZE);
  const double memory_gib = pages > 0 && page_size > 0 ? double(pages) * double(page_size) / (1024.0 * 1024 * 1024) : 0;
  const auto devices = availableDevices();
  const int gpus = static_cast<int>(std::count_if(devices.begin(), devices.end(),
                                                  [](const std::string& d) { return d.rfind("cuda:", 0) == 0; }));
  return QString("this machine: %1 cores, %2 GiB memory, %3")
      .arg(QThread::idealThreadCount())
      .arg(memory_gib, 0, 'f', 1)
      .arg(gpus == 0 ? QString("no GPU (data-parallel ranks use Gloo on CPU)") : QString::number(gpus) + " GPUs");
}

QString LocalLaunchTarget::start(const QStringList& arguments, const QString& working_directory,
                                 LaunchedProcess* launched) {
  if (cli_path_.isEmpty()) return "cannot find the mixerlab executable next to the GUI or on PATH";
  qint64 pid = 0;
  QProcess process;
  process.setProgram(cli_path_);
  process.setArguments(arguments);
  process.setWorkingDirectory(working_directory);
  process.setStandardOutputFile(QProcess::nullDevice());  // progress; the run writes its own log.txt
  // Standard error goes to a file the LaunchWatcher reads if the process ends without starting the
  // run: the CLI's refusal ("already exists; pass --resume") must reach the user.
  const QString error_file = QDir(QDir::tempPath()).filePath(
      "mixerlab-launch-" + QUuid::createUuid().toString(QUuid::WithoutBraces) + ".log");
  process.setStandardErrorFile(launched != nullptr ? error_file : QProcess::nullDevice());
  if (!process.startDetached(&pid)) return "could not start " + cli_path_ + ": " + process.errorString();
  if (launched != nullptr) *launched = {pid, error_file};
  return {};
}

QString requestStop(const QString& run_directory) {
  const auto status = readRunStatus(run_directory.toStdString());
  if (!status || status->resolvedForReader().state != RunState::Running) return "the run is not running";
  if (status->host != hostName()) return "the run is on another host (" + QString::fromStdString(status->host) + ")";
  if (::kill(static_cast<pid_t>(status->pid), SIGTERM) != 0)
    return "could not signal process " + QString::number(status->pid);
  return {};
}

}  // namespace mixerlab::gui
