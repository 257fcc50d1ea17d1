// AppSettings: the GUI's persistent preferences (QSettings "MixerLab" / "mixerlab-gui") behind
// typed accessors, so no other file spells a settings key: the main window's geometry and dock
// layout, the last opened project and the recent-projects list. With MIXERLAB_SETTINGS_DIR set
// they live in <dir>/mixerlab-gui.ini instead of the user's configuration: the test programs set it,
// so running the tests never changes what the user's next launch opens.
#pragma once
#include <QByteArray>
#include <QHash>
#include <QSettings>
#include <QString>
#include <QStringList>
#include <QVariantMap>
#include <memory>

namespace mixerlab::gui {

class AppSettings {
 public:
  static constexpr int kMaxRecentProjects = 8;

  AppSettings();
  QString fileName() const { return settings_->fileName(); }

  QByteArray windowGeometry() const;
  void setWindowGeometry(const QByteArray& geometry);
  QByteArray windowState() const;  // docks and toolbars (QMainWindow::saveState)
  void setWindowState(const QByteArray& state);

  // The loss plot's view (x axis, log scales, smoothing) as the user left it: a map of plain values
  // (empty when never saved), so this class needs no widget types.
  QVariantMap plotView() const;
  void setPlotView(const QVariantMap& view);

  // Saved remote hosts (SSH launch targets): maps with host, user, port, identity, folder, program, nproc.
  QList<QVariantMap> remoteHosts() const;
  void setRemoteHosts(const QList<QVariantMap>& hosts);

  // The last hardware report a launch target answered (`mixerlab probe`): its one-line description
  // and when it was taken (ISO time); empty when never probed. Shown until a fresh probe answers.
  QString targetHardware(const QString& target_name) const;
  QString targetHardwareTime(const QString& target_name) const;
  void setTargetHardware(const QString& target_name, const QString& description, const QString& iso_time);

  // The settings keys the runs table shows as hyperparameter columns ("model.d_model", ...).
  QStringList runTableColumns() const;
  void setRunTableColumns(const QStringList& keys);

  // The palette slot each run and group of a project is drawn in (SeriesColours::assignments), by
  // the project file's absolute path: a project opened again draws its runs in the same colours.
  QHash<QString, int> plotColours(const QString& project_file) const;
  void setPlotColours(const QString& project_file, const QHash<QString, int>& slots);

  // The project opened last (empty if none): opened at start when none is given.
  QString lastProject() const;
  // Most recent first, at most kMaxRecentProjects, no duplicates.
  QStringList recentProjects() const;
  // Makes `project_file` the last project and moves it to the front of the recent list.
  void rememberProject(const QString& project_file);

 private:
  std::unique_ptr<QSettings> settings_;
};

}  // namespace mixerlab::gui
