// Launching and stopping CLI training processes (see run_launcher.h).
#include "app/gui/launch/run_launcher.h"

#include <unistd.h>

#include <algorithm>

#include <QFileInfo>
#include <QThread>

#include "app/gui/launch/detached_spawn.h"

#include <signal.h>

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
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

QStringList RemoteLaunchTarget::remoteArguments(const QStringList& arguments, const QString& project_dir) const {
  // train PROJECT --run RUN [...]: the remote project has the same file name in the remote folder.
  QStringList train = arguments;
  QString run, run_id;
  for (int i = 0; i + 1 < train.size(); ++i) {
    if (train[i] == "--run") run = train[i + 1];
    if (train[i] == "--run-id") run_id = train[i + 1];
  }
  if (train.size() > 1) train[1] = QFileInfo(train[1]).fileName();
  QStringList out{"remote",
                  "--host",
                  host_.host,
                  "--port",
                  QString::number(host_.port),
                  "--folder",
                  host_.folder,
                  "--program",
                  host_.program,
                  "--nproc",
                  QString::number(host_.nproc),
                  "--local-run-dir",
                  project_dir + "/runs/" + (run_id.isEmpty() ? run : run_id)};
  if (!host_.user.isEmpty()) out << "--user" << host_.user;
  if (!host_.identity.isEmpty()) out << "--identity" << host_.identity;
  return out << "--" << train;
}

QString RemoteLaunchTarget::start(const QStringList& arguments, const QString& working_directory,
                                  LaunchedProcess* launched) {
  if (host_.host.isEmpty() || host_.folder.isEmpty()) return "the remote host has no host name or remote folder";
  const QString error = local_.start(remoteArguments(arguments, working_directory), working_directory, launched);
  if (launched != nullptr) launched->trainer_descends = false;  // the trainer runs on the remote host
  return error;
}

std::unique_ptr<LaunchTarget> makeLaunchTarget(const LaunchTargetSpec& spec) {
  switch (spec.kind) {
    case LaunchTargetKind::kLocal:
      return std::make_unique<LocalLaunchTarget>(findCliExecutable());
    case LaunchTargetKind::kLocalGpu:
      if (spec.count < 0) return nullptr;
      return std::make_unique<LocalLaunchTarget>(findCliExecutable(), spec.count);
    case LaunchTargetKind::kLocalRanks:
    case LaunchTargetKind::kLocalGpus:
      if (spec.count < 2) return nullptr;
      return std::make_unique<LocalDataParallelTarget>(findCliExecutable(), spec.count,
                                                       spec.kind == LaunchTargetKind::kLocalGpus);
    case LaunchTargetKind::kRemoteHost:
      if (spec.host.host.isEmpty()) return nullptr;
      return std::make_unique<RemoteLaunchTarget>(findCliExecutable(), spec.host);
  }
  return nullptr;
}

QString LocalDataParallelTarget::start(const QStringList& arguments, const QString& working_directory,
                                       LaunchedProcess* launched) {
  // On GPUs every rank asks for "cuda" and takes cuda:LOCAL_RANK (core/distributed/rank_device.h).
  const QStringList device = on_gpus_ ? QStringList{"--device", "cuda"} : QStringList{};
  return local_.start(QStringList{"launch", "--nproc", QString::number(ranks_), "--"} + arguments + device,
                      working_directory, launched);
}

QString LocalLaunchTarget::start(const QStringList& arguments, const QString& working_directory,
                                 LaunchedProcess* launched) {
  if (cli_path_.isEmpty()) return "cannot find the mixerlab executable next to the GUI or on PATH";
  const QStringList device = gpu_ < 0 ? QStringList{} : QStringList{"--device", "cuda:" + QString::number(gpu_)};
  qint64 pid = 0;
  // Standard output is progress (the run writes its own log.txt). Standard error goes to a file the
  // run monitor reads if the process ends without starting the run: the CLI's refusal ("already
  // exists; pass --resume") must reach the user. Spawned, not forked (detached_spawn.h).
  const QString error_file =
      QDir(QDir::tempPath()).filePath("mixerlab-launch-" + QUuid::createUuid().toString(QUuid::WithoutBraces) + ".log");
  const QString error = spawnDetached(
      {cli_path_, arguments + device, working_directory, QString(), launched != nullptr ? error_file : QString()},
      &pid);
  if (!error.isEmpty()) return error;
  if (launched != nullptr) {
    launched->pid = pid;
    launched->error_file = error_file;
    launched->trainer_descends = true;
  }
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
