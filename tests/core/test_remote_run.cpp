// Remote runs over SSH (issue 12), against a real sshd the test starts on 127.0.0.1 with a
// throwaway host key, a throwaway user key and a temporary home (skipped, with the reason, where
// sshd is not installed or cannot start). `mixerlab remote` trains on the "remote" side and the
// metrics arrive in the local run directory while it trains; Stop (SIGTERM to the local mirror)
// stops the remote job; a remote folder named with spaces, quotes and ';' is passed safely, and a
// run name with them is refused before anything runs remotely.
#include <QtTest/QtTest>

#include <QProcess>
#include <QThread>

#include <nlohmann/json.hpp>

#include <signal.h>

#include "core/distributed/rank_launcher.h"
#include "core/runs/metrics_log.h"
#include "core/runs/remote_run.h"
#include "core/runs/run_status.h"
#include "core/train/hardware_report.h"
#include "tests/training_fixture.h"

using namespace mixerlab;
namespace fs = std::filesystem;

class TestRemoteRun : public QObject {
  Q_OBJECT
  fs::path dir_, remote_folder_, key_;
  int port_ = 0;
  QProcess sshd_;

  QStringList remoteArgs(const fs::path& local_run_dir) const {
    return {"remote",
            "--host",
            "127.0.0.1",
            "--user",
            QString::fromLocal8Bit(qgetenv("USER").isEmpty() ? "root" : qgetenv("USER")),
            "--port",
            QString::number(port_),
            "--identity",
            QString::fromStdString(key_.string()),
            "--ssh-option",
            "StrictHostKeyChecking=no",
            "--ssh-option",
            "UserKnownHostsFile=/dev/null",
            "--ssh-option",
            "LogLevel=ERROR",
            "--folder",
            QString::fromStdString(remote_folder_.string()),
            "--program",
            QString::fromStdString(testing::cliPath().string()),
            "--local-run-dir",
            QString::fromStdString(local_run_dir.string()),
            "--poll",
            "0.3"};
  }

 private Q_SLOTS:
  void initTestCase() {
    if (!fs::exists("/usr/sbin/sshd")) QSKIP("sshd is not installed (apt-get install openssh-server)");
    dir_ = testing::makeScratchDir("remote-run");
    fs::create_directories(dir_ / "home");
    qputenv("HOME", QByteArray::fromStdString((dir_ / "home").string()));  // ssh never touches the user's ~/.ssh
    auto run = [](const QString& program, const QStringList& args) {
      QProcess p;
      p.setProcessChannelMode(QProcess::MergedChannels);
      p.start(program, args);
      p.waitForFinished(30000);
      return p.exitCode() == 0 ? QString() : QString::fromUtf8(p.readAll());
    };
    for (const char* name : {"host_key", "user_key"}) {
      const QString error =
          run("ssh-keygen", {"-q", "-t", "ed25519", "-N", "", "-f", QString::fromStdString((dir_ / name).string())});
      if (!error.isEmpty()) QSKIP(qPrintable("ssh-keygen failed: " + error));
    }
    key_ = dir_ / "user_key";
    fs::copy_file(dir_ / "user_key.pub", dir_ / "authorized_keys");
    fs::permissions(dir_ / "authorized_keys", fs::perms::owner_read | fs::perms::owner_write);
    fs::create_directories("/run/sshd");  // sshd's privilege-separation folder
    port_ = freeTcpPort();
    testing::writeText(dir_ / "sshd_config",
                       "Port " + std::to_string(port_) + "\nListenAddress 127.0.0.1\nHostKey " +
                           (dir_ / "host_key").string() + "\nAuthorizedKeysFile " +
                           (dir_ / "authorized_keys").string() + "\nPidFile " + (dir_ / "sshd.pid").string() +
                           "\nStrictModes no\nUsePAM no\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n"
                           "PermitRootLogin prohibit-password\n");
    sshd_.setProcessChannelMode(QProcess::MergedChannels);
    sshd_.start("/usr/sbin/sshd", {"-D", "-e", "-f", QString::fromStdString((dir_ / "sshd_config").string())});
    if (!sshd_.waitForStarted(5000)) QSKIP("sshd could not start");
    QTest::qWait(500);
    if (sshd_.state() != QProcess::Running) QSKIP(qPrintable("sshd exited: " + QString::fromUtf8(sshd_.readAll())));
    // The remote folder's name has spaces, quotes and ';': it must reach the remote shell as one word.
    remote_folder_ = dir_ / "remote dir 'q' \"d\"; touch PWNED";
    fs::create_directories(remote_folder_);
    testing::writeTinyProject(remote_folder_, R"(, "threads": 1, "max_steps": 400, "log_every": 2)");
  }

  void cleanupTestCase() {
    if (sshd_.state() == QProcess::Running) {
      sshd_.terminate();
      sshd_.waitForFinished(5000);
    }
  }

  void metricsArriveLocallyWhileItTrains() {
    const fs::path local = dir_ / "local" / "runs" / "mixer";
    QProcess remote;
    remote.setProcessChannelMode(QProcess::MergedChannels);
    remote.start(
        QString::fromStdString(testing::cliPath().string()),
        remoteArgs(local) + QStringList{"--", "train", "project.json", "--run", "mixer", "--max-steps", "300"});
    QVERIFY(remote.waitForStarted());
    // Live: records show up locally before the remote job ends.
    bool seen_while_running = false;
    QElapsedTimer waited;
    waited.start();
    while (remote.state() == QProcess::Running && waited.elapsed() < 180000) {
      if (!readMetrics(local / "metrics.jsonl").empty() && readRunStatus(local) &&
          readRunStatus(local)->state == RunState::Running) {
        seen_while_running = true;
      }
      QTest::qWait(100);
    }
    QVERIFY(remote.state() == QProcess::NotRunning || remote.waitForFinished(180000));
    const QString output = QString::fromUtf8(remote.readAll());
    QVERIFY2(remote.exitCode() == 0, qPrintable(output));
    QVERIFY2(seen_while_running, "no metrics arrived while the remote run trained");
    const auto mirrored = readMetrics(local / "metrics.jsonl");
    const auto original = readMetrics(remote_folder_ / "runs" / "mixer" / "metrics.jsonl");
    QVERIFY(!original.empty());
    QCOMPARE(mirrored.size(), original.size());
    QCOMPARE(mirrored.back().step, int64_t{300});
    QCOMPARE(readRunStatus(local)->state, RunState::Finished);
    QVERIFY(fs::exists(local / "run.json"));
    QVERIFY(!fs::exists(remote_folder_ / "PWNED") && !fs::exists(dir_ / "PWNED") &&
            !fs::exists(dir_ / "home" / "PWNED"));
  }

  void stopStopsTheRemoteJob() {
    const fs::path local = dir_ / "local" / "runs" / "stopped";
    QProcess remote;
    remote.start(QString::fromStdString(testing::cliPath().string()),
                 remoteArgs(local) + QStringList{"--", "train", "project.json", "--run", "mixer", "--run-id", "stopped",
                                                 "--max-steps", "100000"});
    QVERIFY(remote.waitForStarted());
    QTRY_VERIFY_WITH_TIMEOUT(
        readRunStatus(local) && readRunStatus(local)->state == RunState::Running && readRunStatus(local)->step > 0,
        120000);
    QCOMPARE(readRunStatus(local)->pid, remote.processId());  // Stop in the GUI signals the mirror
    ::kill(static_cast<pid_t>(remote.processId()), SIGTERM);
    QVERIFY(remote.waitForFinished(60000));
    QCOMPARE(readRunStatus(local)->state, RunState::Stopped);
    QCOMPARE(readRunStatus(remote_folder_ / "runs" / "stopped")->state, RunState::Stopped);
  }

  // The launch target's hardware before a launch: `mixerlab probe --host` asks the remote mixerlab
  // over SSH (in the hostile-named folder) and reports its machine, this one here.
  void probeReportsTheRemoteMachine() {
    QProcess probe;
    QStringList args = remoteArgs(dir_ / "unused");
    args[0] = "probe";
    const int local_dir = static_cast<int>(args.indexOf("--local-run-dir"));
    args.remove(local_dir, 2);
    args.remove(static_cast<int>(args.indexOf("--poll")), 2);
    args << "--json";
    probe.start(QString::fromStdString(testing::cliPath().string()), args);
    QVERIFY(probe.waitForFinished(60000));
    const std::string output = probe.readAllStandardOutput().toStdString();
    QVERIFY2(probe.exitCode() == 0, qPrintable(QString::fromStdString(output) + probe.readAllStandardError()));
    const HardwareReport report = hardwareReportFromJson(nlohmann::json::parse(output.substr(output.find('{'))));
    QCOMPARE(report.cpu_cores, QThread::idealThreadCount());
    QCOMPARE(report.host, probeThisMachine().host);
    QVERIFY(!fs::exists(remote_folder_ / "PWNED") && !fs::exists(dir_ / "PWNED"));
  }

  void hostileRunNameIsRefusedBeforeAnythingRuns() {
    const fs::path local = dir_ / "local" / "runs" / "hostile";
    QProcess remote;
    remote.setProcessChannelMode(QProcess::MergedChannels);
    remote.start(QString::fromStdString(testing::cliPath().string()),
                 remoteArgs(local) + QStringList{"--", "train", "project.json", "--run", "mixer", "--run-id",
                                                 "it's a \"run\"; touch PWNED2"});
    QVERIFY(remote.waitForFinished(60000));
    const QString output = QString::fromUtf8(remote.readAll());
    QVERIFY(remote.exitCode() != 0);
    QVERIFY2(output.contains("run name") && output.contains("use letters, digits"), qPrintable(output));
    QVERIFY(!fs::exists(remote_folder_ / "PWNED2") &&
            !fs::exists(remote_folder_ / "runs" / "it's a \"run\"; touch PWNED2"));
    // And the quoting itself: a word with every awkward character comes back unchanged from a shell.
    const std::string word = "a b 'c' \"d\"; $(e) `f` \\g";
    QProcess shell;
    shell.start("sh", {"-c", QString::fromStdString("printf %s " + shellQuote(word))});
    QVERIFY(shell.waitForFinished(5000));
    QCOMPARE(shell.readAll().toStdString(), word);
  }
};

QTEST_MAIN(TestRemoteRun)
#include "test_remote_run.moc"
