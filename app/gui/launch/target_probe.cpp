// Asynchronous hardware probes of launch targets (see target_probe.h).
#include "app/gui/launch/target_probe.h"

#include <QProcess>
#include <QTimer>

#include <nlohmann/json.hpp>

#include "app/gui/common/app_settings.h"
#include "app/gui/launch/run_launcher.h"
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

QStringList TargetProbe::probeArguments(const QString& target_name) {
  if (target_name.startsWith("local")) return {"probe", "--json"};
  for (const QVariantMap& saved : AppSettings().remoteHosts()) {
    const RemoteHostSettings host = RemoteHostSettings::fromMap(saved);
    if (host.targetName() != target_name) continue;
    QStringList args{
        "probe",     "--json",     "--host",       host.host,          "--port", QString::number(host.port),
        "--program", host.program, "--ssh-option", "ConnectTimeout=10"};
    if (!host.folder.isEmpty()) args << "--folder" << host.folder;
    if (!host.user.isEmpty()) args << "--user" << host.user;
    if (!host.identity.isEmpty()) args << "--identity" << host.identity;
    return args;
  }
  return {};
}

void TargetProbe::probe(const QString& target_name) {
  if (running_.contains(target_name)) return;
  const QStringList args = probeArguments(target_name);
  if (args.isEmpty()) return;
  if (cli_path_.isEmpty()) {
    Q_EMIT failed(target_name, "cannot find the mixerlab executable next to the GUI or on PATH");
    return;
  }
  auto* process = new QProcess(this);
  process->setProcessChannelMode(QProcess::MergedChannels);
  running_.insert(target_name, process);
  connect(process, &QProcess::finished, this, [this, target_name] { finish(target_name); });
  connect(process, &QProcess::errorOccurred, this, [this, target_name](QProcess::ProcessError error) {
    if (error == QProcess::FailedToStart) finish(target_name);
  });
  QTimer::singleShot(time_limit_ms_, process, [process] { process->kill(); });
  process->start(cli_path_, args);
}

void TargetProbe::finish(const QString& target_name) {
  QProcess* process = running_.take(target_name);
  if (!process) return;
  process->deleteLater();
  const QString output = QString::fromUtf8(process->readAll());
  if (process->exitStatus() != QProcess::NormalExit || process->exitCode() != 0) {
    const QString why = process->error() == QProcess::FailedToStart ? process->errorString() : output.trimmed();
    Q_EMIT failed(target_name, why.isEmpty() ? "the probe was stopped after its time limit" : why);
    return;
  }
  // The JSON follows the marker line; ssh warnings before it are not part of the report.
  const int marker = output.indexOf(QString::fromLatin1(kHardwareReportMarker));
  const int json_start = marker < 0 ? -1 : output.indexOf('{', marker);
  try {
    if (json_start < 0) throw std::runtime_error("no hardware report in: " + output.trimmed().toStdString());
    const auto report = hardwareReportFromJson(nlohmann::json::parse(output.mid(json_start).toStdString()));
    Q_EMIT probed(target_name, QString::fromStdString(describeHardware(report)));
  } catch (const std::exception& e) {
    Q_EMIT failed(target_name, QString::fromUtf8(e.what()));
  }
}

}  // namespace mixerlab::gui
