// Checkpoint lookup for "fork from here" (see fork_point.h).
#include "app/gui/common/fork_point.h"

#include <algorithm>

#include <QFileInfo>

#include "core/runs/run_directory.h"
#include "core/train/checkpoint.h"

namespace mixerlab::gui {

long long checkpointStep(const QString& checkpoint_folder) {
  const QString name = QFileInfo(checkpoint_folder).fileName();  // step-<N>
  bool ok = false;
  const long long n = name.startsWith("step-") ? name.mid(QString("step-").size()).toLongLong(&ok) : -1;
  return ok ? n : -1;
}

QStringList checkpointFolders(const QString& run_directory) {
  const RunPaths paths{run_directory.toStdString()};
  QStringList folders;
  for (const auto& folder : listCheckpoints(paths.checkpoints())) folders << QString::fromStdString(folder.string());
  std::sort(folders.begin(), folders.end(),
            [](const QString& a, const QString& b) { return checkpointStep(a) < checkpointStep(b); });
  return folders;
}

QString checkpointAtOrBefore(const QString& run_directory, double step, QString* error) {
  QString best;
  long long best_step = -1;
  for (const QString& folder : checkpointFolders(run_directory)) {
    const long long n = checkpointStep(folder);
    if (n >= 0 && n <= step && n > best_step) best_step = n, best = folder;
  }
  if (best.isEmpty() && error) {
    *error = QFileInfo(run_directory).fileName() + " has no checkpoint at or before step " +
             QString::number(qint64(step)) + ": fork from a later point, or lower train.checkpoint_every";
  }
  return best;
}

}  // namespace mixerlab::gui
