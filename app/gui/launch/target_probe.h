// Asks a launch target what hardware it has (cores, memory, GPUs, NCCL) without blocking the GUI:
// runs `mixerlab probe --json` as an asynchronous QProcess, locally or with a saved remote host's
// SSH settings (`--host ...`, key-based, so it never waits on a password prompt), and reports the
// one-line description (core/train/hardware_report.h) through a signal. A probe that does not
// answer within its time limit is killed and reported as failed.
#pragma once
#include <QHash>
#include <QObject>
#include <QString>
#include <QStringList>

class QProcess;

namespace mixerlab::gui {

class TargetProbe : public QObject {
  Q_OBJECT
 public:
  explicit TargetProbe(QString cli_path, QObject* parent = nullptr, int time_limit_ms = 30000);
  ~TargetProbe() override;

  // The CLI arguments that probe a target name from launchTargetNames(): {"probe", "--json"} for the
  // local targets, with --host/--user/--port/--identity/--folder/--program for a saved SSH host.
  // Empty for an unknown name.
  static QStringList probeArguments(const QString& target_name);

  // Starts a probe of `target_name` (nothing when one is already running for it, or the name is
  // unknown). Exactly one of probed / failed follows.
  void probe(const QString& target_name);
  bool isProbing(const QString& target_name) const { return running_.contains(target_name); }

 Q_SIGNALS:
  void probed(const QString& target_name, const QString& description);
  void failed(const QString& target_name, const QString& error);

 private:
  void finish(const QString& target_name);

  QString cli_path_;
  int time_limit_ms_;
  QHash<QString, QProcess*> running_;
};

}  // namespace mixerlab::gui
