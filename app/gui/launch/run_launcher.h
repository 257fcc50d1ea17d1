// Starts and stops training runs as detached child processes of the mixerlab CLI, so they keep
// going when the GUI closes and the GUI reattaches by reading their run directories. The launch
// target is an interface made from a LaunchTargetSpec (launch_target_spec.h), one class per kind.
#pragma once
#include <QString>
#include <QStringList>
#include <memory>

#include "app/gui/common/launched_process.h"
#include "app/gui/launch/launch_target_spec.h"

namespace mixerlab::gui {

class LaunchTarget {
 public:
  explicit LaunchTarget(LaunchTargetSpec spec) : spec_(std::move(spec)) {}
  virtual ~LaunchTarget() = default;
  const LaunchTargetSpec& spec() const { return spec_; }
  QString name() const { return spec_.displayName(); }
  // Starts `mixerlab <arguments>`; returns an error message, empty on success. `launched` (when
  // given) receives the process and its error file, for the run monitor (watchLaunch).
  virtual QString start(const QStringList& arguments, const QString& working_directory,
                        LaunchedProcess* launched = nullptr) = 0;

 private:
  LaunchTargetSpec spec_;
};

// The local machine: a detached `mixerlab` process. "local" trains where the project says (its
// train.device, "auto" by default); "local, GPU k" appends `--device cuda:k` to the train command.
class LocalLaunchTarget : public LaunchTarget {
 public:
  explicit LocalLaunchTarget(QString cli_path, int gpu = -1)
      : LaunchTarget(gpu < 0 ? LaunchTargetSpec::local() : LaunchTargetSpec::localGpu(gpu)),
        cli_path_(std::move(cli_path)),
        gpu_(gpu) {}
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
      : LaunchTarget(on_gpus ? LaunchTargetSpec::localGpus(ranks) : LaunchTargetSpec::localRanks(ranks)),
        local_(std::move(cli_path)),
        ranks_(ranks),
        on_gpus_(on_gpus) {}
  QString start(const QStringList& arguments, const QString& working_directory,
                LaunchedProcess* launched = nullptr) override;

 private:
  LocalLaunchTarget local_;
  int ranks_;
  bool on_gpus_;
};

// A saved remote host: `mixerlab remote --host ... -- train ...` started locally (a detached process
// like any run), which trains on the host over SSH and mirrors the run into the local run folder
// (core/runs/remote_run.h).
class RemoteLaunchTarget : public LaunchTarget {
 public:
  RemoteLaunchTarget(QString cli_path, RemoteHostSettings host)
      : LaunchTarget(LaunchTargetSpec::remote(host)), local_(std::move(cli_path)), host_(std::move(host)) {}
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

// The target that launches runs as `spec` says (launchTargets() lists a machine's); callers only
// ever see the LaunchTarget interface. nullptr when the spec cannot launch (fewer than 2 ranks, a
// negative GPU index, a remote host without host name).
std::unique_ptr<LaunchTarget> makeLaunchTarget(const LaunchTargetSpec& spec);

// Asks a running run to stop (SIGTERM: it checkpoints and records "stopped"). Returns an error
// message, empty on success.
QString requestStop(const QString& run_directory);

}  // namespace mixerlab::gui
