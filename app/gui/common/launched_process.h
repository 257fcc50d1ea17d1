// A CLI process the GUI has just started for a run, as the run monitor watches it until the run
// has visibly started (runs/run_monitor.h): its pid, the file that receives its standard error
// (where a command the CLI refuses says why) and the run's status.json stamp before the launch.
#pragma once
#include <QString>

namespace mixerlab::gui {

struct LaunchedProcess {
  qint64 pid = 0;
  QString error_file;
  QString status_before;  // status.json's updated_at before the launch ("" when there was none)
  // True when the trainer is `pid` or a process it starts (a rank of `mixerlab launch`) on this
  // host: a status.json written by any other process is then not this launch's start.
  bool trainer_descends = false;
};

// True when `pid` is `ancestor` or descends from it within a few generations (read from /proc).
bool processDescendsFrom(qint64 pid, qint64 ancestor);

// The updated_at of `run_directory`'s status.json; "" when it has none (yet).
QString statusStamp(const QString& run_directory);
// The CLI's message in an error file: its "error:" and "fix:" lines, else its last five lines.
QString cliErrorMessage(const QString& error_file);

}  // namespace mixerlab::gui
