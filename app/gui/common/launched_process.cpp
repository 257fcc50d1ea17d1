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

namespace {
// The parent of `pid` from /proc/<pid>/stat ("pid (comm) state ppid ..."; comm may hold spaces and
// parentheses, so the fields are read after its last ')'); 0 when it cannot be read.
qint64 parentOf(qint64 pid) {
  QFile stat(QString("/proc/%1/stat").arg(pid));
  if (!stat.open(QIODevice::ReadOnly)) return 0;
  const QByteArray line = stat.readAll();
  const qsizetype close = line.lastIndexOf(')');
  if (close < 0) return 0;
  const QList<QByteArray> fields = line.mid(close + 1).trimmed().split(' ');
  return fields.size() >= 2 ? fields[1].toLongLong() : 0;
}
}  // namespace

bool processDescendsFrom(qint64 pid, qint64 ancestor) {
  constexpr int kGenerations = 4;  // the CLI, a launcher's ranks, and room for a wrapper
  for (int i = 0; i <= kGenerations && pid > 1; ++i) {
    if (pid == ancestor) return true;
    pid = parentOf(pid);
  }
  return false;
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
