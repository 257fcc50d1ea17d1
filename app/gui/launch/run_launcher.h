// Starts and stops training runs as detached child processes of the mixerlab CLI, so they keep
// going when the GUI closes and the GUI reattaches by reading their run directories. The launch
// target is an interface so multi-GPU nodes and remote hosts can be added as further targets.
#pragma once
#include <QString>
#include <QStringList>
#include <QVariantMap>
#include <memory>

namespace mixerlab::gui {

// A started CLI process: its pid and the file that receives its standard error, where a command
// the CLI refuses (a run that already exists, an unknown run) says why.
struct LaunchedProcess {
  qint64 pid = 0;
  QString error_file;
};

class LaunchTarget {
 public:
  virtual ~LaunchTarget() = default;
  virtual QString name() const = 0;
  // Starts `mixerlab <arguments>`; returns an error message, empty on success. `launched` (when
  // given) receives the process and its error file, for a LaunchWatcher.
  virtual QString start(const QStringList& arguments, const QString& working_directory,
                        LaunchedProcess* launched = nullptr) = 0;
};

// The local machine: a detached `mixerlab` process. "local" trains where the project says (its
// train.device, "auto" by default); "local, GPU k" appends `--device cuda:k` to the train command.
class LocalLaunchTarget : public LaunchTarget {
 public:
  explicit LocalLaunchTarget(QString cli_path, int gpu = -1) : cli_path_(std::move(cli_path)), gpu_(gpu) {}
  QString name() const override { return gpu_ < 0 ? "local" : "local, GPU " + QString::number(gpu_); }
  QString start(const QStringList& arguments, const QString& working_directory,
                LaunchedProcess* launched = nullptr) override;

 private:
  QString cli_path_;
  int gpu_;
};

// This machine, N data-parallel ranks: `mixerlab launch --nproc N -- train ...` (Gloo on CPU; the
// ranks share the cores and the global batch). Stop signals rank 0, which stops the job together.
// With `on_gpus`, "local, N GPUs": each rank trains on its own GPU (cuda:LOCAL_RANK) over NCCL.
class LocalDataParallelTarget : public LaunchTarget {
 public:
  LocalDataParallelTarget(QString cli_path, int ranks, bool on_gpus = false)
      : local_(std::move(cli_path)), ranks_(ranks), on_gpus_(on_gpus) {}
  QString name() const override;
  QString start(const QStringList& arguments, const QString& working_directory,
                LaunchedProcess* launched = nullptr) override;

 private:
  LocalLaunchTarget local_;
  int ranks_;
  bool on_gpus_;
};

// A saved remote host: `mixerlab remote --host ... -- train ...` started locally (a detached process
// like any run), which trains on the host over SSH and mirrors the run into the local run folder
// (core/runs/remote_run.h). The remote folder must hold the project under the same file name.
struct RemoteHostSettings {
  QString host, user, identity, folder, program = "mixerlab";
  int port = 22, nproc = 1;
  QString targetName() const;  // "ssh: user@host"
  QVariantMap toMap() const;
  static RemoteHostSettings fromMap(const QVariantMap& map);
};

class RemoteLaunchTarget : public LaunchTarget {
 public:
  RemoteLaunchTarget(QString cli_path, RemoteHostSettings host) : local_(std::move(cli_path)), host_(std::move(host)) {}
  QString name() const override { return host_.targetName(); }
  QString start(const QStringList& arguments, const QString& working_directory,
                LaunchedProcess* launched = nullptr) override;
  // The local `mixerlab remote ...` arguments for train `arguments` of a project in `project_dir`.
  QStringList remoteArguments(const QStringList& arguments, const QString& project_dir) const;

 private:
  LocalLaunchTarget local_;
  RemoteHostSettings host_;
};

// $MIXERLAB_CLI if set, else the mixerlab executable next to the GUI (installed or in the build
// tree), else from PATH.
QString findCliExecutable();

// `train PROJECT --run RUN [--resume] [--run-id ID] [--fork-from CHECKPOINT_DIR]`.
QStringList trainArguments(const QString& project_file, const QString& run_name, bool resume,
                           const QString& run_id = {}, const QString& fork_from = {});

// The launch-target registry behind the GUI's target selector: "local" (one process, on the
// project's device), "local, 2 ranks" (data parallel on the CPU), then for a machine with GPUs
// "local, GPU k" for each and "local, N GPUs" (one rank per GPU), and "ssh: user@host" for every
// saved remote host (AppSettings::remoteHosts); callers only ever see the LaunchTarget interface.
// `gpu_count` < 0: the GPUs LibTorch sees.
QStringList launchTargetNames(int gpu_count = -1);
// A new target for a name from launchTargetNames(); nullptr for an unknown name.
std::unique_ptr<LaunchTarget> makeLaunchTarget(const QString& name);

// Asks a running run to stop (SIGTERM: it checkpoints and records "stopped"). Returns an error
// message, empty on success.
QString requestStop(const QString& run_directory);

}  // namespace mixerlab::gui
