// Starts and stops training runs as detached child processes of the mixerlab CLI, so they keep
// going when the GUI closes and the GUI reattaches by reading their run directories. The launch
// target is an interface so multi-GPU nodes and remote hosts can be added as further targets.
#pragma once
#include <QString>
#include <QStringList>

namespace mixerlab::gui {

class LaunchTarget {
 public:
  virtual ~LaunchTarget() = default;
  virtual QString name() const = 0;
  // Starts `mixerlab <arguments>`; returns an error message, empty on success.
  virtual QString start(const QStringList& arguments, const QString& working_directory) = 0;
};

// The local machine (CPU or its one GPU): a detached `mixerlab` process.
class LocalLaunchTarget : public LaunchTarget {
 public:
  explicit LocalLaunchTarget(QString cli_path) : cli_path_(std::move(cli_path)) {}
  QString name() const override { return "local"; }
  QString start(const QStringList& arguments, const QString& working_directory) override;

 private:
  QString cli_path_;
};

// $MIXERLAB_CLI if set, else the mixerlab executable next to the GUI (installed or in the build
// tree), else from PATH.
QString findCliExecutable();

QStringList trainArguments(const QString& project_file, const QString& run_name, bool resume);

// Asks a running run to stop (SIGTERM: it checkpoints and records "stopped"). Returns an error
// message, empty on success.
QString requestStop(const QString& run_directory);

}  // namespace mixerlab::gui
