// Watches CLI processes the GUI has just launched until their run has visibly started (status.json
// written after the launch). A process that ends before that was refused by the CLI (a run that
// already exists, an unknown run, a bad project file): the watcher reads the error the CLI wrote to
// its standard error and reports it, so no launch fails silently. Polls on the GUI thread (a
// kill(pid, 0) and a small file stat per watched launch every 250 ms).
#pragma once
#include <QObject>
#include <QString>
#include <QTimer>
#include <QVector>

#include "app/gui/launch/run_launcher.h"

namespace mixerlab::gui {

class LaunchWatcher : public QObject {
  Q_OBJECT
 public:
  static constexpr int kPollMs = 250;
  static constexpr int kGiveUpMs = 10 * 60 * 1000;  // a run that has not started by then is left to the queue's timeout

  explicit LaunchWatcher(QObject* parent = nullptr);
  ~LaunchWatcher() override;

  // `run` names the launch in the reports; `run_directory` is where its status.json will appear.
  void watch(const QString& run, const QString& run_directory, const LaunchedProcess& launched);
  int watching() const { return static_cast<int>(launches_.size()); }

 Q_SIGNALS:
  void started(const QString& run);                             // its status.json was written
  void launchFailed(const QString& run, const QString& error);  // it ended first; the CLI's message

 private:
  struct Launch {
    QString run, run_directory;
    LaunchedProcess process;
    QString status_before;  // status.json's updated_at at launch
    qint64 launched_ms = 0;
  };
  void poll();
  QTimer timer_;
  QVector<Launch> launches_;
};

// The CLI's message in an error file: its "error:" and "fix:" lines, else its last lines.
QString cliErrorMessage(const QString& error_file);

}  // namespace mixerlab::gui
