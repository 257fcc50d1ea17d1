// Asynchronous hardware probes of launch targets (see target_probe.h).
#include "app/gui/launch/target_probe.h"

#include <QProcess>
#include <QTimer>

#include <nlohmann/json.hpp>

#include "core/train/hardware_report.h"

namespace mixerlab::gui {

TargetProbe::TargetProbe(QString cli_path, QObject* parent, int time_limit_ms)
    : QObject(parent), cli_path_(std::move(cli_path)), time_limit_ms_(time_limit_ms) {}

TargetProbe::~TargetProbe() {
  for (QProcess* process : running_) {
    process->disconnect();
    process->kill();
    process->waitForFinished(2000);
  }
}

void TargetProbe::probe(const LaunchTargetSpec& target) {
  const QString hardware_key = target.hardwareKey();
  if (running_.contains(hardware_key)) return;
  const QStringList args = target.probeArguments();
  if (cli_path_.isEmpty()) {
    Q_EMIT failed(hardware_key, "cannot find the mixerlab executable next to the GUI or on PATH");
    return;
  }
  auto* process = new QProcess(this);
  process->setProcessChannelMode(QProcess::MergedChannels);
  running_.insert(hardware_key, process);
  connect(process, &QProcess::finished, this, [this, hardware_key] { finish(hardware_key); });
  connect(process, &QProcess::errorOccurred, this, [this, hardware_key](QProcess::ProcessError error) {
    if (error == QProcess::FailedToStart) finish(hardware_key);
  });
  QTimer::singleShot(time_limit_ms_, process, [process] { process->kill(); });
  process->start(cli_path_, args);
}

void TargetProbe::finish(const QString& hardware_key) {
  QProcess* process = running_.take(hardware_key);
  if (!process) return;
  process->deleteLater();
  const QString output = QString::fromUtf8(process->readAll());
  if (process->exitStatus() != QProcess::NormalExit || process->exitCode() != 0) {
    const QString why = process->error() == QProcess::FailedToStart ? process->errorString() : output.trimmed();
    Q_EMIT failed(hardware_key, why.isEmpty() ? "the probe was stopped after its time limit" : why);
    return;
  }
  // The JSON follows the marker line; ssh warnings before it are not part of the report.
  const int marker = output.indexOf(QString::fromLatin1(kHardwareReportMarker));
  const int json_start = marker < 0 ? -1 : output.indexOf('{', marker);
  try {
    if (json_start < 0) throw std::runtime_error("no hardware report in: " + output.trimmed().toStdString());
    const auto report = hardwareReportFromJson(nlohmann::json::parse(output.mid(json_start).toStdString()));
    Q_EMIT probed(hardware_key, QString::fromStdString(describeHardware(report)));
  } catch (const std::exception& e) {
    Q_EMIT failed(hardware_key, QString::fromUtf8(e.what()));
  }
}

}  // namespace mixerlab::gui
