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

#include "app/gui/launch/launch_target_spec.h"

class QProcess;

namespace mixerlab::gui {

class TargetProbe : public QObject {
  Q_OBJECT
 public:
  explicit TargetProbe(QString cli_path, QObject* parent = nullptr, int time_limit_ms = 30000);
  ~TargetProbe() override;

  // Starts a probe of `target` (LaunchTargetSpec::probeArguments), under its hardware key: nothing
  // when one is already running for that key. Exactly one of probed / failed follows, naming the key.
  void probe(const LaunchTargetSpec& target);
  bool isProbing(const QString& hardware_key) const { return running_.contains(hardware_key); }

 Q_SIGNALS:
  void probed(const QString& hardware_key, const QString& description);
  void failed(const QString& hardware_key, const QString& error);

 private:
  void finish(const QString& hardware_key);

  QString cli_path_;
  int time_limit_ms_;
  QHash<QString, QProcess*> running_;
};

}  // namespace mixerlab::gui
