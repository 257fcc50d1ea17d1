// Checkpoint lookup for "fork from here" (see fork_point.h).
#include "app/gui/runs/fork_point.h"

#include <QFileInfo>

#include "core/runs/run_directory.h"
#include "core/train/checkpoint.h"

namespace mixerlab::gui {

QString checkpointAtOrBefore(const QString& run_directory, double step, QString* error) {
  const RunPaths paths{run_directory.toStdString()};
  QString best;
  long long best_step = -1;
  for (const auto& folder : listCheckpoints(paths.checkpoints())) {
    const QString name = QString::fromStdString(folder.filename().string());  // step-<N>
    bool ok = false;
    const long long n = name.mid(QString("step-").size()).toLongLong(&ok);
    if (ok && n <= step && n > best_step) best_step = n, best = QString::fromStdString(folder.string());
  }
  if (best.isEmpty() && error) {
    *error = QFileInfo(run_directory).fileName() + " has no checkpoint at or before step " +
             QString::number(qint64(step)) + ": fork from a later point, or lower train.checkpoint_every";
  }
  return best;
}

}  // namespace mixerlab::gui
