// Runs the built mixerlab executable as a child process (see cli_process.h).
#include "tests/cli_process.h"

#include <QProcess>

#include "tests/test_support.h"

namespace mixerlab::testing {

CliResult runCli(const QStringList& args, int timeout_ms) {
  QProcess p;
  p.start(QString::fromStdString(cliPath().string()), args);
  if (!p.waitForFinished(timeout_ms)) {
    p.kill();
    p.waitForFinished();
  }
  return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromUtf8(p.readAllStandardOutput()),
          QString::fromUtf8(p.readAllStandardError())};
}

}  // namespace mixerlab::testing
