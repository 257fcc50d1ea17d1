// Column entries (see column_request.h).
#include "app/gui/common/column_request.h"

#include <QDir>
#include <QFileInfo>

namespace mixerlab::gui {

ColumnRequest parseColumnEntry(const QString& entry, const QString& runs_directory, const QStringList& project_runs) {
  ColumnRequest request;
  request.untrained = entry.startsWith(kUntrainedPrefix);
  const QString name = request.untrained ? entry.mid(QString(kUntrainedPrefix).size()) : entry;
  const bool plain_name =
      !name.isEmpty() && name != "." && name != ".." && !name.contains('/') && !name.contains(QDir::separator());
  const bool is_run = !runs_directory.isEmpty() && plain_name &&
                      (project_runs.contains(name) || QFileInfo(runs_directory + "/" + name).isDir());
  request.path = is_run ? runs_directory + "/" + name : name;
  return request;
}

}  // namespace mixerlab::gui
