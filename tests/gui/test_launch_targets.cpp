// Launch targets with their hardware: a GPU target appends its device to the train
// command ("local, GPU k": cuda:k; "local, N GPUs": N ranks asking for cuda), checked with a stand-in
// CLI script that records its arguments; the selector probes this machine in the background and
// shows its cores before any launch; an unreachable SSH host fails its probe with the reason,
// and a saved host's probe passes a hostile folder as one argument. A start while another thread
// is inside a BLAS product returns at once (it froze the workbench when it forked), and the child
// runs in its own session, in the working directory, with its standard error in the error file,
// and is reaped when it ends.
#include <ATen/ATen.h>
#include <QtTest/QtTest>

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include <QComboBox>
#include <QRegularExpression>
#include <QThread>

#include "app/gui/common/app_settings.h"
#include "app/gui/launch/detached_spawn.h"
#include "app/gui/launch/launch_target_selector.h"
#include "app/gui/launch/remote_host_dialog.h"
#include "app/gui/launch/run_launcher.h"
#include "app/gui/launch/target_probe.h"
#include "core/distributed/rank_launcher.h"
#include "tests/test_support.h"

using namespace mixerlab;
namespace fs = std::filesystem;

class TestLaunchTargets : public QObject {
  Q_OBJECT
  fs::path dir_;

  // Starts `target` with the train arguments and returns what the stand-in CLI received.
  QString argumentsReceived(gui::LaunchTarget& target, const fs::path& record) {
    gui::LaunchedProcess launched;
    const QString error =
        target.start(gui::trainArguments("p.json", "mixer", false), QString::fromStdString(dir_.string()), &launched);
    if (!error.isEmpty()) return "start failed: " + error;
    QElapsedTimer waited;
    waited.start();
    while (!fs::exists(record) && waited.elapsed() < 10000) QTest::qWait(20);
    QTest::qWait(100);
    QFile file(QString::fromStdString(record.string()));
    if (!file.open(QIODevice::ReadOnly)) return "no record";
    return QString::fromUtf8(file.readAll()).trimmed();
  }

 private Q_SLOTS:
  void initTestCase() {
    qputenv("MIXERLAB_CLI", QByteArray::fromStdString(testing::cliPath().string()));
    dir_ = testing::makeScratchDir("launch-targets");
    gui::AppSettings().setRemoteHosts({});
  }

  void gpuTargetsAppendTheirDevice() {
    const fs::path script = dir_ / "fake-mixerlab.sh", record = dir_ / "args.txt";
    testing::writeText(script, "#!/bin/sh\necho \"$*\" > " + record.string() + ".tmp && mv " + record.string() +
                                   ".tmp " + record.string() + "\n");
    fs::permissions(script, fs::perms::owner_all);
    const QString fake = QString::fromStdString(script.string());
    gui::LocalLaunchTarget gpu(fake, 1);
    QCOMPARE(argumentsReceived(gpu, record), QString("train p.json --run mixer --device cuda:1"));
    fs::remove(record);
    gui::LocalLaunchTarget plain(fake);
    QCOMPARE(argumentsReceived(plain, record), QString("train p.json --run mixer"));
    fs::remove(record);
    gui::LocalDataParallelTarget gpus(fake, 4, true);
    QCOMPARE(gpus.name(), QString("local, 4 GPUs"));
    QCOMPARE(argumentsReceived(gpus, record), QString("launch --nproc 4 -- train p.json --run mixer --device cuda"));
    fs::remove(record);
    gui::LocalDataParallelTarget cpu_ranks(fake, 2);
    QCOMPARE(argumentsReceived(cpu_ranks, record), QString("launch --nproc 2 -- train p.json --run mixer"));
  }

  // The queue starts a run while an inversion or a generation is multiplying matrices on another
  // thread. A fork() then ran OpenBLAS's at-fork handler, which waits for BLAS threads that are busy
  // with that product: the GUI froze (found by driving the walkthrough under Xvfb, with gdb).
  void startsWhileAnotherThreadMultipliesMatrices() {
    const fs::path script = dir_ / "fake-busy.sh";
    testing::writeText(
        script,
        "#!/bin/sh\necho \"$(pwd) $$ $(cut -d' ' -f6 /proc/$$/stat)\" > \"$1.tmp\" && mv \"$1.tmp\" \"$1\"\n"
        "echo refused >&2\n");
    fs::permissions(script, fs::perms::owner_all);
    std::atomic<bool> stop{false};
    std::thread products([&stop] {
      const at::Tensor a = at::randn({384, 384});
      while (!stop) at::mm(a, a);
    });
    // A fork() here either hangs in OpenBLAS's at-fork handler (the GUI's freeze) or shuts BLAS's
    // workers down under the running product, which then never returns. Either way SIGALRM's default
    // action ends the program within a minute.
    ::alarm(60);
    QThread::msleep(200);  // the products are running
    gui::LocalLaunchTarget target(QString::fromStdString(script.string()));
    std::vector<std::pair<fs::path, gui::LaunchedProcess>> started;
    for (int i = 0; i < 40; ++i) {
      const fs::path record = dir_ / ("busy-" + std::to_string(i) + ".txt");
      gui::LaunchedProcess launched;
      const QString error =
          target.start({QString::fromStdString(record.string())}, QString::fromStdString(dir_.string()), &launched);
      if (!error.isEmpty()) break;
      started.emplace_back(record, launched);
    }
    stop = true;
    products.join();
    ::alarm(0);
    QCOMPARE(started.size(), size_t{40});
    for (const auto& [record, launched] : started) {
      QElapsedTimer waited;
      waited.start();
      while (!fs::exists(record) && waited.elapsed() < 10000) QTest::qWait(20);
      QFile file(QString::fromStdString(record.string()));
      QVERIFY2(file.open(QIODevice::ReadOnly), record.c_str());
      const QStringList fields = QString::fromUtf8(file.readAll()).trimmed().split(' ');
      QCOMPARE(fields.size(), 3);
      QCOMPARE(fields[0], QString::fromStdString(fs::canonical(dir_).string()));  // the working directory
      QCOMPARE(fields[1].toLongLong(), launched.pid);
      QCOMPARE(fields[2], fields[1]);  // a session leader: it outlives the GUI's terminal
      // The child has ended and been reaped: no zombie left for kill(pid, 0) to report alive.
      while (::kill(static_cast<pid_t>(launched.pid), 0) == 0 && waited.elapsed() < 10000) QTest::qWait(20);
      QVERIFY2(::kill(static_cast<pid_t>(launched.pid), 0) != 0, "an ended child is still there (a zombie)");
      QFile error_file(launched.error_file);
      QVERIFY(error_file.open(QIODevice::ReadOnly));
      QCOMPARE(QString::fromUtf8(error_file.readAll()).trimmed(), QString("refused"));
    }
    gui::LocalLaunchTarget missing(QString::fromStdString((dir_ / "no-such-mixerlab").string()));
    const QString error = missing.start({"train"}, QString::fromStdString(dir_.string()));
    QVERIFY2(error.contains("could not start") && error.contains("no-such-mixerlab"), qPrintable(error));
  }

  // A run must not inherit what the GUI changed for itself: signals the GUI ignores (SIGPIPE,
  // SIGHUP, SIGTERM, SIGINT: a run would then survive "Stop" or die on a closed pipe without its
  // handlers) and signals a GUI thread blocks. The parent here ignores and blocks them all; the child
  // reads its own dispositions and mask from /proc.
  void childStartsWithDefaultSignalsAndAnEmptyMask() {
    const std::vector<int> reset_signals{SIGPIPE, SIGHUP, SIGTERM, SIGINT};
    std::vector<struct sigaction> saved(reset_signals.size());
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    for (size_t i = 0; i < reset_signals.size(); ++i) QCOMPARE(::sigaction(reset_signals[i], &ignore, &saved[i]), 0);
    sigset_t blocked, previous_mask;
    sigemptyset(&blocked);
    sigaddset(&blocked, SIGUSR1);
    sigaddset(&blocked, SIGTERM);
    QCOMPARE(::pthread_sigmask(SIG_BLOCK, &blocked, &previous_mask), 0);
    const fs::path status_copy = dir_ / "child-status.txt";
    gui::DetachedSpawn spawn;
    spawn.program = "/bin/cat";
    spawn.arguments = {"/proc/self/status"};
    spawn.standard_output = QString::fromStdString(status_copy.string());
    qint64 pid = 0;
    const QString error = gui::spawnDetached(spawn, &pid);
    QCOMPARE(::pthread_sigmask(SIG_SETMASK, &previous_mask, nullptr), 0);
    for (size_t i = 0; i < reset_signals.size(); ++i) QCOMPARE(::sigaction(reset_signals[i], &saved[i], nullptr), 0);
    QCOMPARE(error, QString());
    QElapsedTimer waited;
    waited.start();
    while (::kill(static_cast<pid_t>(pid), 0) == 0 && waited.elapsed() < 10000) QTest::qWait(20);
    QFile file(QString::fromStdString(status_copy.string()));
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QString status = QString::fromUtf8(file.readAll());
    const auto maskOf = [&status](const QString& field) {
      const QRegularExpressionMatch m =
          QRegularExpression("^" + field + ":\\s*([0-9a-f]+)$", QRegularExpression::MultilineOption).match(status);
      return m.hasMatch() ? m.captured(1).toULongLong(nullptr, 16) : ~0ULL;
    };
    const quint64 ignored = maskOf("SigIgn"), blocked_in_child = maskOf("SigBlk");
    for (const int signal_number : reset_signals) {
      QVERIFY2((ignored & (1ULL << (signal_number - 1))) == 0,
               qPrintable(QString("the child ignores signal %1 (SigIgn %2)").arg(signal_number).arg(ignored, 0, 16)));
    }
    QCOMPARE(blocked_in_child, quint64{0});
  }

  void savedHostProbeKeepsTheFolderOneArgument() {
    gui::RemoteHostSettings host;
    host.host = "gpu-node";
    host.user = "me";
    host.port = 2222;
    host.folder = "/data/it's a \"dir\"; rm -rf x";
    host.program = "/opt/mixerlab/bin/mixerlab";
    host.identity = "/home/me/.ssh/id_node";
    const QStringList args = gui::LaunchTargetSpec::remote(host).probeArguments();
    QCOMPARE(args, QStringList({"probe", "--json", "--host", "gpu-node", "--port", "2222", "--program",
                                "/opt/mixerlab/bin/mixerlab", "--ssh-option", "ConnectTimeout=10", "--folder",
                                host.folder, "--user", "me", "--identity", "/home/me/.ssh/id_node"}));
    QCOMPARE(gui::LaunchTargetSpec::localGpu(2).probeArguments(), QStringList({"probe", "--json"}));
  }

  // A probe whose program cannot start at all fails at once with the reason, and is not left
  // "probing" forever.
  void probeOfAMissingProgramFails() {
    gui::TargetProbe probe(QString::fromStdString((dir_ / "no-such-mixerlab").string()));
    QSignalSpy failed(&probe, &gui::TargetProbe::failed);
    QSignalSpy probed(&probe, &gui::TargetProbe::probed);
    probe.probe(gui::LaunchTargetSpec::localGpu(1));
    QVERIFY(failed.wait(10000));
    QCOMPARE(failed.at(0).at(0).toString(), QString("local"));
    QVERIFY2(!failed.at(0).at(1).toString().isEmpty(), "no reason given");
    QCOMPARE(probed.count(), 0);
    QVERIFY(!probe.isProbing("local"));
  }

  void selectorShowsThisMachineBeforeLaunch() {
    gui::AppSettings().setTargetHardware("local", "", "");
    gui::LaunchTargetSelector selector(QString::fromStdString(testing::cliPath().string()), nullptr, 2);
    QCOMPARE(selector.targets(), gui::launchTargets(2));
    QStringList shown;
    for (int i = 0; i < selector.findChild<QComboBox*>("launch_target")->count(); ++i)
      shown << selector.findChild<QComboBox*>("launch_target")->itemText(i);
    QCOMPARE(shown, QStringList({"local", "local, 2 ranks", "local, GPU 0", "local, GPU 1", "local, 2 GPUs"}));
    QSignalSpy probed(selector.probe(), &gui::TargetProbe::probed);
    QVERIFY(selector.hardwareLabelText().contains("probing"));
    QVERIFY(probed.wait(60000));
    const QString cores = QString::number(QThread::idealThreadCount()) + " cores";
    QVERIFY2(probed.at(0).at(1).toString().contains(cores), qPrintable(probed.at(0).at(1).toString()));
    QVERIFY2(selector.hardwareLabelText().contains(cores), qPrintable(selector.hardwareLabelText()));
    QCOMPARE(gui::AppSettings().targetHardware("local"), probed.at(0).at(1).toString());
    // Another local target shows the same machine at once, from the cache.
    QVERIFY(selector.setCurrentTarget(gui::LaunchTargetSpec::localRanks(2)));
    QVERIFY(selector.hardwareOf(gui::LaunchTargetSpec::localRanks(2)).contains(cores));
  }

  // Every local target is this one machine: choosing another local target probes it again under
  // its hardware key "local" (the label says so at once, then shows the answer) and caches it once,
  // never under the target's own name.
  void localTargetsShareOneHardwareKey() {
    gui::AppSettings().setTargetHardware("local", "", "");
    gui::AppSettings().setTargetHardware("local, GPU 0", "", "");
    gui::LaunchTargetSelector selector(QString::fromStdString(testing::cliPath().string()), nullptr, 2);
    QSignalSpy probed(selector.probe(), &gui::TargetProbe::probed);
    QVERIFY(probed.wait(60000));  // the first target's probe
    QCOMPARE(probed.at(0).at(0).toString(), QString("local"));
    probed.clear();
    QVERIFY(selector.setCurrentTarget(gui::LaunchTargetSpec::localGpu(0)));
    QVERIFY(selector.probe()->isProbing("local"));
    QVERIFY(!selector.probe()->isProbing("local, GPU 0"));
    QVERIFY2(selector.hardwareLabelText().contains("probing"), qPrintable(selector.hardwareLabelText()));
    QVERIFY(probed.wait(60000));
    QCOMPARE(probed.at(0).at(0).toString(), QString("local"));
    const QString cores = QString::number(QThread::idealThreadCount()) + " cores";
    QVERIFY2(selector.hardwareLabelText().contains(cores), qPrintable(selector.hardwareLabelText()));
    QVERIFY(!selector.hardwareLabelText().contains("probing"));
    QVERIFY(gui::AppSettings().targetHardware("local, GPU 0").isEmpty());
  }

  void unreachableHostFailsWithTheReason() {
    gui::RemoteHostSettings host;
    host.host = "127.0.0.1";
    host.user = "nobody";
    host.port = freeTcpPort();  // nothing listens there
    host.folder = "/tmp";
    gui::saveRemoteHost(host);
    gui::LaunchTargetSelector selector(QString::fromStdString(testing::cliPath().string()), nullptr, 0);
    QSignalSpy failed(selector.probe(), &gui::TargetProbe::failed);
    QVERIFY(selector.setCurrentTarget(gui::LaunchTargetSpec::remote(host)));
    QVERIFY(failed.wait(30000));
    QCOMPARE(failed.at(0).at(0).toString(), QString("ssh: nobody@127.0.0.1"));
    QVERIFY2(failed.at(0).at(1).toString().contains("probing nobody@127.0.0.1 failed"),
             qPrintable(failed.at(0).at(1).toString()));
    QVERIFY2(selector.hardwareLabelText().contains("probe failed"), qPrintable(selector.hardwareLabelText()));
    gui::AppSettings().setRemoteHosts({});
  }
};

QTEST_MAIN(TestLaunchTargets)
#include "test_launch_targets.moc"
