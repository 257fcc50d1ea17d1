// Runs the built mixerlab executable as a child process, for the tests that drive the real CLI.
#pragma once
#include <QString>
#include <QStringList>

namespace mixerlab::testing {

struct CliResult {
  int exit_code = -1;  // -1 when the process crashed or was killed at its time limit
  QString out, err;
};

CliResult runCli(const QStringList& args, int timeout_ms = 300000);

}  // namespace mixerlab::testing
