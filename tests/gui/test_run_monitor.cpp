// The run monitor, the one poller of a project's runs, watching launched processes: a CLI that
// refuses the command (exits before its run writes a status) is reported with its "error:" and
// "fix:" lines, and its error file removed; a run that writes its status is reported started
// before the poll's snapshot of it, and its folder gets no snapshot before its status exists; a status that was already
// there before the launch (a resumed run's old one) is not a start; every snapshot carries the stamp of the status it
// was read from. The launches are real detached processes of a stand-in CLI script (LocalLaunchTarget).
#include <QtTest/QtTest>

#include <QElapsedTimer>
#include <QFile>

#include "app/gui/launch/run_launcher.h"
#include "app/gui/runs/run_monitor.h"
#include "core/runs/run_status.h"
#include "tests/test_support.h"

using namespace mixerlab;
namespace fs = std::filesystem;

class TestRunMonitor : public QObject {
  Q_OBJECT
  fs::path dir_, runs_;

  // Launches `script_body` as the stand-in CLI and has `monitor` watch it for run folder `run`.
  gui::LaunchedProcess launchScript(gui::RunMonitor& monitor, const QString& run, const std::string& script_body) {
    const fs::path script = dir_ / ("cli-" + run.toStdString() + ".sh");
    testing::writeText(script, "#!/bin/sh\n" + script_body + "\n");
    fs::permissions(script, fs::perms::owner_all);
    gui::LocalLaunchTarget target(QString::fromStdString(script.string()));
    gui::LaunchedProcess launched;
    launched.status_before = gui::statusStamp(QString::fromStdString((runs_ / run.toStdString()).string()));
    const QString error = target.start({"train"}, QString::fromStdString(dir_.string()), &launched);
    if (!error.isEmpty()) qWarning("start failed: %s", qPrintable(error));
    monitor.watchLaunch(run, launched);
    return launched;
  }

  // Polls until `done` or 20 s.
  template <typename Done>
  static bool pollUntil(gui::RunMonitor& monitor, Done done) {
    QElapsedTimer waited;
    waited.start();
    while (!done() && waited.elapsed() < 20000) {
      monitor.pollNow();
      QTest::qWait(50);
    }
    return done();
  }

 private Q_SLOTS:
  void initTestCase() {
    dir_ = testing::makeScratchDir("run-monitor");
    runs_ = dir_ / "runs";
    fs::create_directories(runs_);
  }

  void refusedLaunchReportsTheCliMessage() {
    gui::RunMonitor monitor(QString::fromStdString(runs_.string()));
    QSignalSpy failed(&monitor, &gui::RunMonitor::launchFailed);
    QSignalSpy started(&monitor, &gui::RunMonitor::launchStarted);
    const gui::LaunchedProcess launched =
        launchScript(monitor, "refused",
                     "echo 'progress line' >&2; echo 'error: run \"refused\" already exists' >&2; "
                     "echo 'fix: pass --resume' >&2; exit 2");
    QVERIFY(launched.pid > 0);
    QCOMPARE(monitor.watchedLaunches(), 1);
    QVERIFY(pollUntil(monitor, [&] { return failed.count() > 0; }));
    QCOMPARE(failed.at(0).at(0).toString(), QString("refused"));
    QCOMPARE(failed.at(0).at(1).toString(), QString("error: run \"refused\" already exists\nfix: pass --resume"));
    QCOMPARE(started.count(), 0);
    QCOMPARE(monitor.watchedLaunches(), 0);
    QVERIFY(!QFile::exists(launched.error_file));
    // Without "error:" or "fix:" lines (a crash's trace, say), the last five lines are the message.
    launchScript(monitor, "crashed", "for n in 1 2 3 4 5 6 7; do echo \"trace line $n\" >&2; done; exit 134");
    QVERIFY(pollUntil(monitor, [&] { return failed.count() > 1; }));
    QCOMPARE(failed.at(1).at(1).toString(),
             QString("trace line 3\ntrace line 4\ntrace line 5\ntrace line 6\ntrace line 7"));
    // A process that says nothing gets the monitor's own words.
    launchScript(monitor, "silent", "exit 1");
    QVERIFY(pollUntil(monitor, [&] { return failed.count() > 2; }));
    QCOMPARE(failed.at(2).at(1).toString(),
             QString("the mixerlab process ended before the run started, without a message"));
  }

  void startedLaunchComesBeforeItsSnapshot() {
    gui::RunMonitor monitor(QString::fromStdString(runs_.string()));
    QStringList events;
    connect(&monitor, &gui::RunMonitor::launchStarted, this, [&](const QString& run) { events << "started " + run; });
    connect(&monitor, &gui::RunMonitor::launchFailed, this, [&](const QString& run) { events << "failed " + run; });
    connect(&monitor, &gui::RunMonitor::runUpdated, this, [&](const gui::RunSnapshot& s) {
      if (s.run == "fresh")
        events << "snapshot " + s.run + " " + QString::fromStdString(runStateName(s.state)) + " " + s.status_stamp;
    });
    // The status the stand-in writes, prepared here and copied in by the script.
    const fs::path prepared = dir_ / "prepared";
    RunStatus running;
    running.state = RunState::Running;
    running.pid = 1;  // not checked here: the snapshot's state is the resolved one
    writeRunStatus(prepared, running);
    const QString written_stamp = QString::fromStdString(readRunStatus(prepared)->updated_at);
    // The folder and its log exist for a second before its status does (the CLI creates the run
    // folder and starts its log, then writes status.json): the polls of that second must say
    // nothing of the run.
    launchScript(monitor, "fresh",
                 "mkdir -p " + (runs_ / "fresh").string() + " && echo starting > " +
                     (runs_ / "fresh" / "log.txt").string() + " && sleep 1 && cp " +
                     (prepared / "status.json").string() + " " + (runs_ / "fresh" / "status.json").string() +
                     " && sleep 3");
    QVERIFY(pollUntil(monitor, [&] { return events.contains("started fresh"); }));
    QVERIFY2(events.size() >= 2, qPrintable(events.join("; ")));
    QCOMPARE(events.at(0), QString("started fresh"));
    QVERIFY2(events.at(1).startsWith("snapshot fresh ") && events.at(1).endsWith(" " + written_stamp),
             qPrintable(events.join("; ")));
    QCOMPARE(monitor.watchedLaunches(), 0);
  }

  // A run folder deleted outside MixerLab is reported gone once (the window then shows the run as
  // not started and drops its curves), and a folder made again under the name is read anew.
  void removedFolderIsReportedOnce() {
    RunStatus finished;
    finished.state = RunState::Finished;
    fs::create_directories(runs_ / "doomed");
    writeRunStatus(runs_ / "doomed", finished);
    gui::RunMonitor monitor(QString::fromStdString(runs_.string()));
    QStringList removed, updated;
    connect(&monitor, &gui::RunMonitor::runFolderRemoved, this, [&](const QString& run) { removed << run; });
    connect(&monitor, &gui::RunMonitor::runUpdated, this, [&](const gui::RunSnapshot& s) {
      if (s.run == "doomed") updated << QString::fromStdString(runStateName(s.state));
    });
    monitor.pollNow();
    QCOMPARE(updated, QStringList({"finished"}));
    fs::remove_all(runs_ / "doomed");
    monitor.pollNow();
    monitor.pollNow();
    QCOMPARE(removed, QStringList({"doomed"}));
    fs::create_directories(runs_ / "doomed");
    writeRunStatus(runs_ / "doomed", finished);
    monitor.pollNow();
    QCOMPARE(updated, QStringList({"finished", "finished"}));
    QCOMPARE(removed.size(), 1);
  }

  // A status.json that does not parse is said to be unreadable beside the state shown, not taken
  // for a run that has yet to start; once it parses again the note goes.
  void aDamagedStatusIsSaidToBeUnreadable() {
    fs::create_directories(runs_ / "damaged");
    testing::writeText(runs_ / "damaged" / "status.json", "{\"state\": ");
    gui::RunMonitor monitor(QString::fromStdString(runs_.string()));
    QStringList reasons;
    connect(&monitor, &gui::RunMonitor::runUpdated, this, [&](const gui::RunSnapshot& s) {
      if (s.run == "damaged") reasons << s.reason;
    });
    monitor.pollNow();
    QCOMPARE(reasons.size(), 1);
    QVERIFY2(reasons[0].contains("status.json cannot be read"), qPrintable(reasons[0]));
    RunStatus stopped;
    stopped.state = RunState::Stopped;
    writeRunStatus(runs_ / "damaged", stopped);
    monitor.pollNow();
    QCOMPARE(reasons.size(), 2);
    QCOMPARE(reasons[1], QString());
  }

  // Two windows, one run: the second window's launch is refused by the run lock while the first
  // window's trainer writes the status. A status written on this host by a process that is neither
  // the launched one nor one it started is not this launch's start, and the refusal is reported; a
  // status the launched process writes itself is.
  void aStatusFromAnotherProcessIsNoStart() {
    gui::RunMonitor monitor(QString::fromStdString(runs_.string()));
    QStringList events;
    connect(&monitor, &gui::RunMonitor::launchStarted, this, [&](const QString& run) { events << "started " + run; });
    connect(&monitor, &gui::RunMonitor::launchFailed, this,
            [&](const QString& run, const QString& error) { events << "failed " + run + ": " + error; });
    RunStatus other;
    other.state = RunState::Running;
    other.pid = QCoreApplication::applicationPid();  // alive, on this host, not the launched script
    other.host = hostName();
    const fs::path prepared = dir_ / "other-trainer";
    writeRunStatus(prepared, other);
    fs::create_directories(runs_ / "locked");
    launchScript(monitor, "locked",
                 "sleep 0.3 && cp " + (prepared / "status.json").string() + " " +
                     (runs_ / "locked" / "status.json").string() +
                     " && sleep 1.5 && echo 'error: run locked is being trained by process 42' >&2 && exit 1");
    QVERIFY(pollUntil(monitor, [&] { return !events.isEmpty(); }));
    QCOMPARE(events, QStringList({"failed locked: error: run locked is being trained by process 42"}));
    // A live process the launched one started (as `mixerlab launch` starts its ranks) writing the
    // status: the launch's start.
    fs::create_directories(runs_ / "own");
    const std::string own_status = (runs_ / "own" / "status.json").string();
    const fs::path child = dir_ / "own-child.sh";
    testing::writeText(child,
                       "printf '{\"state\": \"running\", \"pid\": %d, \"host\": \"%s\", \"updated_at\": "
                       "\"2026-12-02T03:00:00Z\"}' $$ \"$(hostname)\" > " +
                           own_status + ".tmp && mv " + own_status + ".tmp " + own_status + " && sleep 3\n");
    launchScript(monitor, "own", "sleep 0.3 && sh " + child.string() + "; true");
    QVERIFY(pollUntil(monitor, [&] { return events.size() >= 2; }));
    QCOMPARE(events.at(1), QString("started own"));
  }

  // A resumed run: its old status stays until the new process writes one. A process that ends
  // without writing one failed, whatever the old status says.
  void statusFromBeforeTheLaunchIsNoStart() {
    RunStatus old;
    old.state = RunState::Stopped;
    fs::create_directories(runs_ / "resumed");
    writeRunStatus(runs_ / "resumed", old);
    gui::RunMonitor monitor(QString::fromStdString(runs_.string()));
    QSignalSpy failed(&monitor, &gui::RunMonitor::launchFailed);
    QSignalSpy started(&monitor, &gui::RunMonitor::launchStarted);
    const gui::LaunchedProcess launched =
        launchScript(monitor, "resumed", "sleep 1; echo 'error: no checkpoint' >&2; exit 1");
    QVERIFY(!launched.status_before.isEmpty());
    QVERIFY(pollUntil(monitor, [&] { return failed.count() > 0; }));
    QCOMPARE(started.count(), 0);
    QCOMPARE(failed.at(0).at(1).toString(), QString("error: no checkpoint"));
  }
};

QTEST_MAIN(TestRunMonitor)
#include "test_run_monitor.moc"
