// Typed GUI settings (see app_settings.h). The keys below are the only place they are spelled.
#include "app/gui/common/app_settings.h"

#include <QCryptographicHash>
#include <QFileInfo>

namespace mixerlab::gui {

namespace {
const char* const kGeometryKey = "window/geometry";
const char* const kStateKey = "window/state";
const char* const kLastProjectKey = "recent/project";
const char* const kRecentProjectsKey = "recent/projects";
const char* const kPlotViewKey = "plot/view";
}  // namespace

AppSettings::AppSettings()
    : settings_(qEnvironmentVariableIsEmpty("MIXERLAB_SETTINGS_DIR")
                    ? std::make_unique<QSettings>("MixerLab", "mixerlab-gui")
                    : std::make_unique<QSettings>(qEnvironmentVariable("MIXERLAB_SETTINGS_DIR") + "/mixerlab-gui.ini",
                                                  QSettings::IniFormat)) {}

QByteArray AppSettings::windowGeometry() const { return settings_->value(kGeometryKey).toByteArray(); }
void AppSettings::setWindowGeometry(const QByteArray& geometry) { settings_->setValue(kGeometryKey, geometry); }
QByteArray AppSettings::windowState() const { return settings_->value(kStateKey).toByteArray(); }
void AppSettings::setWindowState(const QByteArray& state) { settings_->setValue(kStateKey, state); }

QVariantMap AppSettings::plotView() const { return settings_->value(kPlotViewKey).toMap(); }
void AppSettings::setPlotView(const QVariantMap& view) { settings_->setValue(kPlotViewKey, view); }

namespace {
// Target names hold '/', ':' and spaces; QSettings keys must not hold '/' (a group separator).
QString hardwareKey(const QString& target_name) {
  return "launch/hardware/" + QString::fromLatin1(target_name.toUtf8().toHex());
}
}  // namespace

QString AppSettings::targetHardware(const QString& target_name) const {
  return settings_->value(hardwareKey(target_name)).toMap().value("description").toString();
}
QString AppSettings::targetHardwareTime(const QString& target_name) const {
  return settings_->value(hardwareKey(target_name)).toMap().value("time").toString();
}
void AppSettings::setTargetHardware(const QString& target_name, const QString& description, const QString& iso_time) {
  settings_->setValue(hardwareKey(target_name), QVariantMap{{"description", description}, {"time", iso_time}});
}

QList<QVariantMap> AppSettings::remoteHosts() const {
  QList<QVariantMap> hosts;
  for (const QVariant& v : settings_->value("launch/remote_hosts").toList()) hosts << v.toMap();
  return hosts;
}
void AppSettings::setRemoteHosts(const QList<QVariantMap>& hosts) {
  QVariantList list;
  for (const QVariantMap& h : hosts) list << h;
  settings_->setValue("launch/remote_hosts", list);
}

QStringList AppSettings::runTableColumns() const {
  return settings_->value("run_table/hyperparameter_columns", QStringList{"model.d_model", "train.learning_rate"})
      .toStringList();
}
void AppSettings::setRunTableColumns(const QStringList& keys) {
  settings_->setValue("run_table/hyperparameter_columns", keys);
}

namespace {
QString plotColoursKey(const QString& project_file) {
  const QByteArray path = QFileInfo(project_file).absoluteFilePath().toUtf8();
  return "plot_colours/" + QString::fromLatin1(QCryptographicHash::hash(path, QCryptographicHash::Sha1).toHex());
}
}  // namespace

QHash<QString, int> AppSettings::plotColours(const QString& project_file) const {
  QHash<QString, int> out;
  const QVariantMap saved = settings_->value(plotColoursKey(project_file)).toMap();
  for (auto it = saved.cbegin(); it != saved.cend(); ++it) {
    bool ok = false;
    const int slot = it.value().toInt(&ok);
    if (ok && slot >= 0) out[it.key()] = slot;
  }
  return out;
}

void AppSettings::setPlotColours(const QString& project_file, const QHash<QString, int>& slots) {
  QVariantMap saved;
  for (auto it = slots.cbegin(); it != slots.cend(); ++it) saved[it.key()] = it.value();
  settings_->setValue(plotColoursKey(project_file), saved);
}

QString AppSettings::lastProject() const { return settings_->value(kLastProjectKey).toString(); }

QStringList AppSettings::recentProjects() const { return settings_->value(kRecentProjectsKey).toStringList(); }

void AppSettings::rememberProject(const QString& project_file) {
  settings_->setValue(kLastProjectKey, project_file);
  QStringList recent = recentProjects();
  recent.removeAll(project_file);
  recent.prepend(project_file);
  while (recent.size() > kMaxRecentProjects) recent.removeLast();
  settings_->setValue(kRecentProjectsKey, recent);
}

}  // namespace mixerlab::gui
