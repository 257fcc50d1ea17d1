// Archive and delete of run folders (see run_archive.h).
#include "app/gui/runs/run_archive.h"

#include <QDir>
#include <QFileInfo>
#include <memory>

#include "core/runs/run_lock.h"
#include "core/util/error.h"

namespace mixerlab::gui {

namespace {
// The run's lock, or the error saying it is training.
std::unique_ptr<RunLock> lockIdleRun(const QString& folder, const QString& run, QString* error) {
  if (!QFileInfo(folder).isDir()) {
    *error = run + " has no run folder (" + folder + "): nothing to archive or delete";
    return nullptr;
  }
  try {
    return std::make_unique<RunLock>(folder.toStdString());
  } catch (const std::exception& e) {
    *error = run + " is training (" + QString::fromStdString(e.what()) + "): stop it first";
    return nullptr;
  }
}
}  // namespace

QString archiveRunFolder(const QString& runs_directory, const QString& run, const QString& archive_directory,
                         QString* archived_to) {
  const QString folder = runs_directory + "/" + run;
  QString error;
  auto lock = lockIdleRun(folder, run, &error);
  if (!lock) return error;
  if (!QDir().mkpath(archive_directory)) return "cannot create " + archive_directory;
  QString target = archive_directory + "/" + run;
  for (int n = 2; QFileInfo::exists(target); ++n) target = archive_directory + "/" + run + "-" + QString::number(n);
  if (!QDir().rename(folder, target)) return "cannot move " + folder + " to " + target;
  if (archived_to) *archived_to = target;
  return {};
}

QString deleteRunFolder(const QString& runs_directory, const QString& run) {
  const QString folder = runs_directory + "/" + run;
  QString error;
  auto lock = lockIdleRun(folder, run, &error);
  if (!lock) return error;
  if (!QDir(folder).removeRecursively()) return "could not delete all of " + folder + " (check its permissions)";
  return {};
}

}  // namespace mixerlab::gui
