// Run queue tests (offscreen): two tiny runs queued on the local target run one after the other
// (the second starts only once the first has finished) while a main window shows the project,
// and the event loop stays responsive meanwhile (measured with the latency probe). Also the
// launch-target registry, the train arguments for --run-id / --fork-from, and a queued fork.
#include <QtTest/QtTest>

#include <QStatusBar>

#include <QComboBox>

#include "app/gui/common/app_settings.h"
#include "app/gui/launch/remote_host_dialog.h"
#include "app/gui/launch/run_control.h"
#include "app/gui/launch/run_launcher.h"
#include "app/gui/launch/run_queue.h"
#include "app/gui/runs/run_list_model.h"
#include "app/gui/shell/main_window.h"
#include "app/gui/tooling/event_loop_latency.h"
#include "core/runs/run_status.h"
#include "tests/gui_test_support.h"
#include "tests/training_fixture.h"

using namespace mixerlab;
namespace fs = std::filesystem;

using testing::NullTarget;

class TestRunQueue : public QObject {
  Q_OBJECT
  fs::path dir_, project_;

 private Q_SLOTS:
  void initTestCase() {
    qputenv("MIXERLAB_CLI", QByteArray::fromStdString(testing::cliPath().string()));
    dir_ = testing::makeScratchDir("run-queue");
    project_ = testing::writeTinyProject(
        dir_, R"(, "max_steps": 60, "schedule_steps": 60, "checkpoint_every": 20, "eval_every": 20)", 64, 64);
  }

  // Each kind of target, by value: its display name, help, hardware key and launcher come from the
  // spec; the names are only ever words for a user, never parsed back.
  void registryAndArguments() {
    gui::AppSettings().setRemoteHosts({});  // this test's settings file outlives a run of the test
    using Spec = gui::LaunchTargetSpec;
    QCOMPARE(gui::launchTargets(0), QList<Spec>({Spec::local(), Spec::localRanks(2)}));
    auto ranks = gui::makeLaunchTarget(Spec::localRanks(2));
    QVERIFY(ranks != nullptr);
    QCOMPARE(ranks->name(), QString("local, 2 ranks"));
    QVERIFY(ranks->spec() == Spec::localRanks(2));
    QVERIFY(gui::makeLaunchTarget(Spec::localRanks(1)) == nullptr);
    QVERIFY(gui::makeLaunchTarget(Spec::localGpus(1)) == nullptr);
    QVERIFY(gui::makeLaunchTarget(Spec::localGpu(-1)) == nullptr);
    QVERIFY(gui::makeLaunchTarget(Spec::remote({})) == nullptr);
    // A machine with GPUs adds one target per GPU and one rank per GPU over all of them.
    QCOMPARE(gui::launchTargets(4),
             QList<Spec>({Spec::local(), Spec::localRanks(2), Spec::localGpu(0), Spec::localGpu(1), Spec::localGpu(2),
                          Spec::localGpu(3), Spec::localGpus(4)}));
    QCOMPARE(gui::launchTargets(1), QList<Spec>({Spec::local(), Spec::localRanks(2), Spec::localGpu(0)}));
    QCOMPARE(gui::makeLaunchTarget(Spec::localGpu(3))->name(), QString("local, GPU 3"));
    QCOMPARE(gui::makeLaunchTarget(Spec::localGpus(4))->name(), QString("local, 4 GPUs"));
    QVERIFY(gui::makeLaunchTarget(Spec::localGpus(4))->spec() == Spec::localGpus(4));
    QVERIFY(gui::makeLaunchTarget(Spec::localGpu(3))->spec() == Spec::localGpu(3));
    QVERIFY(Spec::localGpu(3) != Spec::localGpu(2));
    QVERIFY(Spec::localGpus(2) != Spec::localRanks(2));
    // Every local target is this machine: one hardware key, one probe command.
    for (const Spec& target : gui::launchTargets(2)) {
      QCOMPARE(target.hardwareKey(), QString("local"));
      QCOMPARE(target.probeArguments(), QStringList({"probe", "--json"}));
      QVERIFY2(!target.help().isEmpty(), qPrintable(target.displayName()));
    }
    QCOMPARE(Spec::localRanks(2).help(),
             QString("Data parallel on this machine's CPU: the ranks share the cores and the global batch (Gloo)."));
    QCOMPARE(Spec::localGpu(1).help(), QString("One process on this GPU."));
    // A saved SSH host becomes a target; its arguments keep a hostile folder as one word.
    gui::RemoteHostSettings host;
    host.host = "gpu-node";
    host.user = "me";
    host.folder = "/data/it's a \"dir\"; rm -rf x";
    host.nproc = 4;
    gui::saveRemoteHost(host);
    const QList<Spec> with_host = gui::launchTargets(0);
    QCOMPARE(with_host.size(), 3);
    QCOMPARE(with_host.at(2).kind, gui::LaunchTargetKind::kRemoteHost);
    QCOMPARE(with_host.at(2).displayName(), QString("ssh: me@gpu-node"));
    QCOMPARE(with_host.at(2).hardwareKey(), QString("ssh: me@gpu-node"));
    QCOMPARE(with_host.at(2).host.folder, host.folder);
    QCOMPARE(with_host.at(2).host.nproc, 4);
    auto remote = gui::makeLaunchTarget(with_host.at(2));
    QVERIFY(remote != nullptr);
    QCOMPARE(remote->name(), QString("ssh: me@gpu-node"));
    const QStringList args =
        static_cast<gui::RemoteLaunchTarget*>(remote.get())
            ->remoteArguments(gui::trainArguments("/home/me/p/project.json", "mixer", false), "/home/me/p");
    QCOMPARE(args, (QStringList{"remote",
                                "--host",
                                "gpu-node",
                                "--port",
                                "22",
                                "--folder",
                                host.folder,
                                "--program",
                                "mixerlab",
                                "--nproc",
                                "4",
                                "--local-run-dir",
                                "/home/me/p/runs/mixer",
                                "--user",
                                "me",
                                "--",
                                "train",
                                "project.json",
                                "--run",
                                "mixer"}));
    auto local = gui::makeLaunchTarget(Spec::local());
    QVERIFY(local != nullptr);
    QCOMPARE(local->name(), QString("local"));
    QCOMPARE(gui::trainArguments("p.json", "mixer", false), QStringList({"train", "p.json", "--run", "mixer"}));
    QCOMPARE(gui::trainArguments("p.json", "mixer", false, "mixer-lr", "/r/mixer/checkpoints/step-8"),
             QStringList({"train", "p.json", "--run", "mixer", "--run-id", "mixer-lr", "--fork-from",
                          "/r/mixer/checkpoints/step-8"}));
  }

  void removeDropsAWaitingRun() {
    gui::RunQueue queue(std::make_unique<NullTarget>(), "p.json",
                        QString::fromStdString((dir_ / "null-runs").string()));
    QSignalSpy changed(&queue, &gui::RunQueue::queueChanged);
    queue.enqueue("a", false);
    queue.enqueue("b", false);
    queue.enqueue("c", true);
    QCOMPARE(queue.current(), QString("a"));
    QCOMPARE(queue.pending(), QStringList({"b", "c"}));
    QVERIFY(queue.remove("b"));
    QVERIFY(!queue.remove("b"));
    QCOMPARE(queue.pending(), QStringList({"c"}));
    QVERIFY(changed.count() >= 4);
    queue.onRunStateChanged("a", RunState::Finished);  // a notification from the run monitor
    QCOMPARE(queue.current(), QString("c"));
    QVERIFY(queue.pending().isEmpty());
  }

  // The run monitor's states, typed: pending and running keep the current run, each end state
  // (failed, stopped, finished) moves the queue on, and a run that is not the current one changes
  // nothing.
  void queueMovesOnAtEveryEndState() {
    gui::RunQueue queue(std::make_unique<NullTarget>(), "p.json",
                        QString::fromStdString((dir_ / "end-state-runs").string()));
    for (const QString run : {"a", "b", "c", "d"}) queue.enqueue(run, false);
    QCOMPARE(queue.current(), QString("a"));
    queue.onRunStateChanged("a", RunState::Pending);
    queue.onRunStateChanged("a", RunState::Running);
    QCOMPARE(queue.current(), QString("a"));
    queue.onRunStateChanged("a", RunState::Failed);
    QCOMPARE(queue.current(), QString("b"));
    queue.onRunStateChanged("b", RunState::Stopped);
    QCOMPARE(queue.current(), QString("c"));
    queue.onRunStateChanged("x", RunState::Finished);
    QCOMPARE(queue.current(), QString("c"));
    queue.onRunStateChanged("c", RunState::Finished);
    QCOMPARE(queue.current(), QString("d"));
    QVERIFY(queue.pending().isEmpty());
  }

  // A queued run started at once while a run started by hand was training, so the
  // two shared the cores. The queue now waits for the target to be free.
  void queueWaitsForARunStartedByHand() {
    const fs::path runs = dir_ / "busy-runs";
    RunStatus busy;
    busy.state = RunState::Running;
    busy.pid = QCoreApplication::applicationPid();  // a live process on this host
    busy.host = hostName();
    fs::create_directories(runs / "by-hand");
    writeRunStatus(runs / "by-hand", busy);
    gui::RunQueue queue(std::make_unique<NullTarget>(), "p.json", QString::fromStdString(runs.string()));
    QSignalSpy started(&queue, &gui::RunQueue::started);
    QCOMPARE(queue.runningRuns(), QStringList({"by-hand"}));
    queue.enqueue("a", false);
    // The monitor's reports of other runs bring a new try, which still finds by-hand running.
    queue.onRunStateChanged("other", RunState::Stopped);
    QCOMPARE(started.count(), 0);
    QCOMPARE(queue.current(), QString());
    QCOMPARE(queue.pending(), QStringList({"a"}));
    busy.state = RunState::Finished;
    writeRunStatus(runs / "by-hand", busy);
    queue.onRunStateChanged("by-hand", RunState::Finished);  // the monitor's report of it ending
    QCOMPARE(started.count(), 1);
    QCOMPARE(queue.current(), QString("a"));
  }

  // Train by hand while the queue waited: the run's first status says pending (it prepares its
  // data), so the queue took the target for free and started its next run a second later, three
  // trainers on two cores. A run started by hand is busy from its launch until it reports another
  // state from a status written after the launch, fails, or its startup time passes.
  void queueWaitsForARunStillPreparing() {
    const fs::path runs = dir_ / "preparing-runs";
    fs::create_directories(runs);
    gui::RunQueue queue(std::make_unique<NullTarget>(), "p.json", QString::fromStdString(runs.string()));
    QSignalSpy started(&queue, &gui::RunQueue::started);
    queue.noteStartedOutside("by-hand", "stamp-of-its-last-life");
    QCOMPARE(queue.startingOutside(), QStringList({"by-hand"}));
    queue.enqueue("a", false);
    queue.onRunStateChanged("by-hand", RunState::Pending, "new-stamp");  // preparing its data
    queue.onRunStateChanged("other", RunState::Stopped);
    queue.onRunStateChanged("by-hand", RunState::Finished, "stamp-of-its-last-life");  // its old status
    QCOMPARE(started.count(), 0);
    QCOMPARE(queue.pending(), QStringList({"a"}));
    queue.onRunStateChanged("by-hand", RunState::Finished, "new-stamp");
    QCOMPARE(started.count(), 1);
    QCOMPARE(queue.current(), QString("a"));
    QVERIFY(queue.startingOutside().isEmpty());

    // A launch by hand that failed frees the target at once.
    queue.onRunStateChanged("a", RunState::Finished);
    queue.noteStartedOutside("refused");
    queue.enqueue("b", false);
    QCOMPARE(started.count(), 1);
    queue.onLaunchFailed("refused");
    QCOMPARE(queue.current(), QString("b"));
    // One that never writes a status stops counting after the startup time.
    queue.onRunStateChanged("b", RunState::Finished);
    queue.setStartupTimeoutMs(150);
    queue.noteStartedOutside("silent");
    queue.enqueue("c", false);
    QCOMPARE(queue.current(), QString());
    QTest::qWait(200);
    QVERIFY(queue.startingOutside().isEmpty());
    queue.onRunStateChanged("other", RunState::Stopped);
    QCOMPARE(queue.current(), QString("c"));
  }

  // The current run's state counts only when it was read from a status written after the launch:
  // the monitor's report of the run's previous life (a resumed run's old "stopped") never ends its
  // turn. A launch the monitor saw fail moves the queue on; one that writes no status within the
  // startup time fails by itself.
  void queueTrustsOnlyStatesWrittenAfterTheLaunch() {
    const fs::path runs = dir_ / "stale-runs";
    RunStatus old;
    old.state = RunState::Stopped;
    fs::create_directories(runs / "a");
    writeRunStatus(runs / "a", old);
    const QString stamp_before = QString::fromStdString(readRunStatus(runs / "a")->updated_at);
    QVERIFY(!stamp_before.isEmpty());
    gui::RunQueue queue(std::make_unique<NullTarget>(), "p.json", QString::fromStdString(runs.string()));
    QSignalSpy launched(&queue, &gui::RunQueue::launched);
    QSignalSpy failed(&queue, &gui::RunQueue::launchFailed);
    queue.enqueue("a", true);
    queue.enqueue("b", false);
    queue.enqueue("c", false);
    QCOMPARE(launched.count(), 1);
    QCOMPARE(launched.at(0).at(0).toString(), QString("a"));
    QCOMPARE(launched.at(0).at(1).value<gui::LaunchedProcess>().status_before, stamp_before);
    queue.onRunStateChanged("a", RunState::Stopped, stamp_before);  // stale
    QCOMPARE(queue.current(), QString("a"));
    queue.onRunStateChanged("a", RunState::Stopped, "2026-11-28T22:00:00Z");  // written since
    QCOMPARE(queue.current(), QString("b"));
    queue.onLaunchFailed("c");  // not the current run: nothing
    QCOMPARE(queue.current(), QString("b"));
    queue.onLaunchFailed("b");
    QCOMPARE(queue.current(), QString("c"));
    QCOMPARE(failed.count(), 0);  // the monitor reports those failures itself
    queue.setStartupTimeoutMs(200);
    queue.enqueue("d", false);
    queue.onRunStateChanged("c", RunState::Finished);
    QCOMPARE(queue.current(), QString("d"));
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 5000);
    QCOMPARE(failed.at(0).at(0).toString(), QString("d"));
    QCOMPARE(failed.at(0).at(1).toString(), QString("the run wrote no status within 0.2 s"));
    QCOMPARE(queue.current(), QString());
  }

  // A waiting run trained outside the queue never fails its turn: one started by hand leaves the
  // queue at once, saying so; one trained elsewhere since it was queued (another window, the CLI)
  // is skipped when its turn comes, saying so. One whose folder already held a trained run when it
  // was queued still fails as before.
  void aRunTrainedOutsideTheQueueLeavesIt() {
    const fs::path runs = dir_ / "outside-runs";
    RunStatus finished;
    finished.state = RunState::Finished;
    fs::create_directories(runs / "old");
    testing::writeText(runs / "old" / "run.json", "{}\n");
    writeRunStatus(runs / "old", finished);
    gui::RunQueue queue(std::make_unique<NullTarget>(), "p.json", QString::fromStdString(runs.string()));
    QSignalSpy left(&queue, &gui::RunQueue::leftQueue);
    QSignalSpy failed(&queue, &gui::RunQueue::launchFailed);
    for (const QString run : {"first", "by-hand", "elsewhere", "old"}) queue.enqueue(run, false);
    QCOMPARE(queue.current(), QString("first"));
    QVERIFY(queue.takeOff("by-hand", "it was started by hand"));
    QVERIFY(!queue.takeOff("by-hand", "it was started by hand"));
    QCOMPARE(left.count(), 1);
    QCOMPARE(left.at(0).at(0).toString(), QString("by-hand"));
    QCOMPARE(left.at(0).at(1).toString(), QString("it was started by hand"));
    QCOMPARE(queue.pending(), QStringList({"elsewhere", "old"}));
    fs::create_directories(runs / "elsewhere");
    testing::writeText(runs / "elsewhere" / "run.json", "{}\n");
    writeRunStatus(runs / "elsewhere", finished);
    queue.onRunStateChanged("first", RunState::Finished);
    QCOMPARE(left.count(), 2);
    QCOMPARE(left.at(1).at(0).toString(), QString("elsewhere"));
    QCOMPARE(left.at(1).at(1).toString(), QString("it was trained outside the queue since it was queued"));
    QCOMPARE(failed.count(), 1);
    QCOMPARE(failed.at(0).at(0).toString(), QString("old"));
    QVERIFY2(failed.at(0).at(1).toString().contains("already exists"), qPrintable(failed.at(0).at(1).toString()));
    QVERIFY(queue.pending().isEmpty());
    QCOMPARE(queue.current(), QString());
  }

  // Train by hand on a waiting run (RunControl::start, what the Train button calls) takes it off
  // the queue, and the window hears why. The CLI is a stand-in that exits at once.
  void trainByHandTakesTheRunOffTheQueue() {
    const fs::path dir = testing::makeScratchDir("train-by-hand");
    const fs::path script = dir / "cli.sh";
    testing::writeText(script, "#!/bin/sh\nsleep 5\n");
    fs::permissions(script, fs::perms::owner_all);
    // The real CLI comes back however the test ends: a failed check must not leave the later tests
    // the fake one (they would wait on it until their timeout).
    struct RestoreCli {
      QByteArray real = qgetenv("MIXERLAB_CLI");
      ~RestoreCli() { qputenv("MIXERLAB_CLI", real); }
    } restore_cli;
    qputenv("MIXERLAB_CLI", QByteArray::fromStdString(script.string()));
    QStringList starting;
    {
      gui::RunControl control;
      const QString project = QString::fromStdString((dir / "project.json").string());
      const QString runs = QString::fromStdString((dir / "runs").string());
      QCOMPARE(control.openProject(project, runs), QString());
      QSignalSpy left(&control, &gui::RunControl::leftQueue);
      control.queue()->enqueue("a", false);
      control.queue()->enqueue("b", false);
      QCOMPARE(control.queue()->pending(), QStringList({"b"}));
      QCOMPARE(control.start("b", runs + "/b", {"train", project, "--run", "b"}, QString::fromStdString(dir.string())),
               QString());
      QCOMPARE(left.count(), 1);
      QCOMPARE(left.at(0).at(0).toString(), QString("b"));
      QCOMPARE(left.at(0).at(1).toString(), QString("it was started by hand"));
      QVERIFY(control.queue()->pending().isEmpty());
      starting = control.queue()->startingOutside();
      control.stopMonitor();
    }
    QCOMPARE(starting, QStringList({"b"}));  // busy while it prepares
  }

  // The "local, 2 ranks" target trains data parallel, and the run list says so.
  void dataParallelTargetShowsItsRanks() {
    gui::MainWindow window;
    QCOMPARE(window.openProject(QString::fromStdString(project_.string())), QString());
    auto* target = window.findChild<QComboBox*>();
    QVERIFY(target && target->findText("local, 2 ranks") >= 0);
    target->setCurrentText("local, 2 ranks");
    QCOMPARE(window.launch("mixer", false), QString());
    QTRY_COMPARE_WITH_TIMEOUT(window.runState("mixer"), QString("finished"), 240000);
    const int row = window.runModel()->rowOf("mixer");
    QTRY_VERIFY_WITH_TIMEOUT(
        window.runModel()->index(row, gui::RunListModel::Device).data().toString().startsWith("2 ranks x cpu"), 5000);
    target->setCurrentText("local");
    const fs::path run = fs::path(window.runsDirectory().toStdString()) / "mixer";
    fs::remove_all(run);  // the next test trains mixer again
  }

  void queuedRunsRunOneAfterAnother() {
    gui::MainWindow window;
    QCOMPARE(window.openProject(QString::fromStdString(project_.string())), QString());
    window.show();
    const QString runs_dir = window.runsDirectory();
    gui::RunQueue& queue = *window.queue();  // fed by the window's run monitor
    QSignalSpy messages(window.statusBar(), &QStatusBar::messageChanged);
    QStringList started;
    QString mixer_state_when_llama_started;
    connect(&queue, &gui::RunQueue::started, this, [&](const QString& run) {
      started << run;
      if (run == "llama") {
        const auto status = readRunStatus(fs::path(runs_dir.toStdString()) / "mixer");
        mixer_state_when_llama_started =
            status ? QString::fromStdString(runStateName(status->resolvedForReader().state)) : "none";
      }
    });
    QSignalSpy failed(&queue, &gui::RunQueue::launchFailed);
    queue.setStartupTimeoutMs(60000);

    gui::EventLoopLatency probe;
    probe.start();
    queue.enqueue("mixer", false);
    queue.enqueue("llama", false);
    QCOMPARE(started, QStringList({"mixer"}));
    QCOMPARE(queue.pending(), QStringList({"llama"}));
    // The window says what the queue started (the run control passes the queue's report on).
    QVERIFY(std::any_of(messages.begin(), messages.end(),
                        [](const QList<QVariant>& m) { return m.at(0).toString() == "queue started mixer"; }));
    // The window's monitor polls every 300 ms, so a run of a second or two may go from "pending" to
    // "finished" between two polls: wait for either. That llama waited for mixer is checked below
    // from mixer's own status at the moment llama started.
    QTRY_VERIFY_WITH_TIMEOUT(window.runState("mixer") == "running" || window.runState("mixer") == "finished", 120000);
    QTRY_COMPARE_WITH_TIMEOUT(started.size(), 2, 240000);
    QCOMPARE(mixer_state_when_llama_started, QString("finished"));
    QTRY_COMPARE_WITH_TIMEOUT(window.runState("llama"), QString("finished"), 240000);
    QTRY_VERIFY_WITH_TIMEOUT(queue.current().isEmpty(), 5000);
    QCOMPARE(window.runState("mixer"), QString("finished"));
    QCOMPARE(failed.count(), 0);

    // A fork queued from the GUI side: a new run directory started from mixer's step-40 checkpoint.
    const QString checkpoint = runs_dir + "/mixer/checkpoints/step-00000040";
    queue.enqueue("mixer", false, "mixer-fork", checkpoint);
    QCOMPARE(queue.current(), QString("mixer-fork"));
    QTRY_VERIFY_WITH_TIMEOUT(queue.current().isEmpty(), 240000);
    QCOMPARE(failed.count(), 0);
    const fs::path fork_dir = fs::path(runs_dir.toStdString()) / "mixer-fork";
    QCOMPARE(readRunStatus(fork_dir)->state, RunState::Finished);
    QFile run_json(QString::fromStdString((fork_dir / "run.json").string()));
    QVERIFY(run_json.open(QIODevice::ReadOnly));
    QVERIFY(run_json.readAll().contains("\"forked_from\""));

    qInfo(
        "event loop latency while two runs trained and the window followed them: max %.1f ms, p99 %.1f ms "
        "over %d ticks of %d ms",
        probe.maxLatencyMs(), probe.p99LatencyMs(), probe.sampleCount(), gui::EventLoopLatency::kIntervalMs);
    // The probe must have run the whole time; the latency figure itself is reported, not asserted:
    // timing targets are checked with `mixerlab-gui --report-latency`, never by timed unit tests
    // (a loaded CI machine measured 640 ms here once while other jobs shared its 2 cores).
    QVERIFY(probe.sampleCount() > 100);
    const auto shot = testing::makeScratchDir("run-queue") / "run-queue-window.png";
    QVERIFY(window.grab().save(QString::fromStdString(shot.string())));
  }

  void latencyProbeSeesABlockedLoop() {
    gui::EventLoopLatency probe;
    probe.start();
    QTest::qWait(100);
    QThread::msleep(120);  // block the GUI thread
    QTest::qWait(50);
    QVERIFY2(probe.maxLatencyMs() > 80, qPrintable(QString::number(probe.maxLatencyMs())));
    probe.reset();
    QCOMPARE(probe.sampleCount(), 0);
    QCOMPARE(probe.maxLatencyMs(), 0.0);
  }
};

QTEST_MAIN(TestRunQueue)
#include "test_run_queue.moc"
