// Launched processes and what they left behind (see launched_process.h).
#include "app/gui/common/launched_process.h"

#include <algorithm>

#include <QFile>
#include <QStringList>

#include "core/runs/run_status.h"

namespace mixerlab::gui {

QString statusStamp(const QString& run_directory) {
  const auto status = readRunStatus(run_directory.toStdString());
  return status ? QString::fromStdString(status->updated_at) : QString();
}

QString cliErrorMessage(const QString& error_file) {
  QFile file(error_file);
  if (!file.open(QIODevice::ReadOnly)) return {};
  const QStringList lines = QString::fromUtf8(file.readAll()).split('\n', Qt::SkipEmptyParts);
  QStringList picked;
  for (const QString& line : lines) {
    if (line.startsWith("error:") || line.startsWith("fix:")) picked << line.trimmed();
  }
  if (picked.isEmpty()) picked = lines.mid(std::max<qsizetype>(0, lines.size() - 5));
  return picked.join('\n');
}

}  // namespace mixerlab::gui
