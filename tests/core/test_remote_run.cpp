// Remote runs over SSH, against a real sshd the test starts on 127.0.0.1 with a
// throwaway host key, a throwaway user key and a temporary home (skipped, with the reason, where
// sshd is not installed or cannot start). `mixerlab remote` trains on the "remote" side and the
// metrics arrive in the local run directory while it trains; Stop (SIGTERM to the local mirror)
// stops the remote job; a remote folder named with spaces, quotes and ';' is passed safely, and a
// run name with them is refused before anything runs remotely. The mirror's poll (the
// flaky mirror) is checked without ssh too: its command in a real shell sends exactly the new
// metrics bytes and no shell message, and a poll with stray or missing bytes is never mirrored.
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
#include "core/util/atomic_file.h"
#include "tests/training_fixture.h"

using namespace mixerlab;
namespace fs = std::filesystem;

class TestRemoteRun : public QObject {
  Q_OBJECT
  fs::path dir_, remote_folder_, key_;
  int port_ = 0;
  QProcess sshd_;
  QString no_sshd_;  // why the tests that need sshd are skipped; empty when it runs

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

  // The mirror's poll command for `run_dir` in `folder`, run by sh here, stdout and stderr as one stream.
  static std::string pollInShell(const fs::path& folder, const std::string& run_dir, uint64_t offset) {
    QProcess shell;
    shell.setProcessChannelMode(QProcess::MergedChannels);
    shell.start("sh", {"-c", QString::fromStdString(remotePollCommand(folder.string(), run_dir, offset))});
    shell.waitForFinished(10000);
    return shell.readAll().toStdString();
  }

 private Q_SLOTS:
  void initTestCase() {
    if (!fs::exists("/usr/sbin/sshd")) {
      no_sshd_ = "sshd is not installed (apt-get install openssh-server)";
      return;
    }
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
      if (!error.isEmpty()) {
        no_sshd_ = "ssh-keygen failed: " + error;
        return;
      }
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
    if (!sshd_.waitForStarted(5000)) {
      no_sshd_ = "sshd could not start";
      return;
    }
    QTest::qWait(500);
    if (sshd_.state() != QProcess::Running) {
      no_sshd_ = "sshd exited: " + QString::fromUtf8(sshd_.readAll());
      return;
    }
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
    if (!no_sshd_.isEmpty()) QSKIP(qPrintable(no_sshd_));
    const fs::path local = dir_ / "local" / "runs" / "mixer";
    QProcess remote;
    remote.setProcessChannelMode(QProcess::MergedChannels);
    remote.start(
        QString::fromStdString(testing::cliPath().string()),
        remoteArgs(local) + QStringList{"--", "train", "project.json", "--run", "mixer", "--max-steps", "300"});
    QVERIFY(remote.waitForStarted());
    // Live: records show up locally before the remote job ends, and the mirror never holds a byte
    // the remote log does not (each local copy is a start of the remote file read just after it).
    bool seen_while_running = false;
    QElapsedTimer waited;
    waited.start();
    const fs::path mirrored_file = local / "metrics.jsonl";
    const fs::path original_file = remote_folder_ / "runs" / "mixer" / "metrics.jsonl";
    while (remote.state() == QProcess::Running && waited.elapsed() < 180000) {
      if (fs::exists(mirrored_file)) {
        const std::string mirrored_now = readFile(mirrored_file);
        const std::string original_now = readFile(original_file);
        QVERIFY2(original_now.compare(0, mirrored_now.size(), mirrored_now) == 0,
                 "the local mirror holds bytes the remote metrics log does not");
      }
      if (!readMetrics(mirrored_file).empty() && readRunStatus(local) &&
          readRunStatus(local)->state == RunState::Running) {
        seen_while_running = true;
      }
      QTest::qWait(100);
    }
    QVERIFY(remote.state() == QProcess::NotRunning || remote.waitForFinished(180000));
    const QString output = QString::fromUtf8(remote.readAll());
    QVERIFY2(remote.exitCode() == 0, qPrintable(output));
    QVERIFY2(seen_while_running, "no metrics arrived while the remote run trained");
    // The final mirror is the remote log, byte for byte: every record once, none torn or foreign.
    QVERIFY(readFile(mirrored_file) == readFile(original_file));
    int skipped = 0;
    const auto mirrored = readMetrics(mirrored_file, &skipped);
    QCOMPARE(skipped, 0);
    QCOMPARE(mirrored.size(), readMetrics(original_file).size());
    QCOMPARE(mirrored.back().step, int64_t{300});
    QCOMPARE(readRunStatus(local)->state, RunState::Finished);
    QVERIFY(fs::exists(local / "run.json"));
    QVERIFY(!fs::exists(remote_folder_ / "PWNED") && !fs::exists(dir_ / "PWNED") &&
            !fs::exists(dir_ / "home" / "PWNED"));
  }

  void stopStopsTheRemoteJob() {
    if (!no_sshd_.isEmpty()) QSKIP(qPrintable(no_sshd_));
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

  // ssh's own messages (LogLevel=VERBOSE: "Authenticated to ...", "Transferred: ..." on every call)
  // never reach the poll's sections: the mirror still fills, byte for byte.
  void sshChatterStaysOutOfTheMirror() {
    if (!no_sshd_.isEmpty()) QSKIP(qPrintable(no_sshd_));
    const fs::path local = dir_ / "local" / "runs" / "chatter";
    QStringList args = remoteArgs(local);
    args[static_cast<int>(args.indexOf("LogLevel=ERROR"))] = "LogLevel=VERBOSE";
    QProcess remote;
    remote.setProcessChannelMode(QProcess::MergedChannels);
    remote.start(QString::fromStdString(testing::cliPath().string()),
                 args + QStringList{"--", "train", "project.json", "--run", "mixer", "--run-id", "chatter",
                                    "--max-steps", "20"});
    QVERIFY(remote.waitForFinished(180000));
    QVERIFY2(remote.exitCode() == 0, remote.readAll().constData());
    const fs::path original_file = remote_folder_ / "runs" / "chatter" / "metrics.jsonl";
    QVERIFY(fs::exists(local / "metrics.jsonl"));
    QVERIFY(readFile(local / "metrics.jsonl") == readFile(original_file));
    QCOMPARE(readMetrics(local / "metrics.jsonl").back().step, int64_t{20});
    QCOMPARE(readRunStatus(local)->state, RunState::Finished);
  }

  // The flaky mirror: the poll's command, run by a real shell with its standard error
  // merged into the output (as a merged stream would carry any message), sends exactly the
  // metrics log's new bytes (a line still being written included), the status, run.json and the
  // log, and no shell message, not even while the metrics log does not exist yet (a message there
  // once took the place of metrics bytes and cost the mirror a record).
  void pollCommandSendsExactlyTheNewBytes() {
    const fs::path folder = testing::makeScratchDir("remote-poll") / "remote 'q' \"d\"; touch PWNED";
    const fs::path run = folder / "runs" / "r";
    fs::create_directories(run);
    const std::string lines = "{\"step\":0}\n{\"step\":1}\n{\"step\":2}\n{\"step\":3,\"tr";
    testing::writeText(run / "metrics.jsonl", lines);
    testing::writeText(run / "status.json", "{\"state\": \"running\"}\n");
    testing::writeText(run / "run.json", "{\"run\": 1}\n");
    testing::writeText(run / "log.txt", "one line\n");
    for (const uint64_t offset : {uint64_t{0}, uint64_t{11}, uint64_t{lines.size()}}) {
      const auto fetched = parseRemotePoll(pollInShell(folder, "runs/r", offset), offset);
      QVERIFY(fetched.has_value());
      QVERIFY(fetched->run_folder_exists);
      QCOMPARE(fetched->metrics_size, uint64_t{lines.size()});
      QVERIFY(fetched->new_metrics == lines.substr(offset));
      QVERIFY(fetched->status_json == "{\"state\": \"running\"}\n");
      QVERIFY(fetched->run_json == "{\"run\": 1}\n");
      QVERIFY(fetched->log_tail == "one line\n");
    }
    // Rewritten shorter (a resume): the size says so, and no byte comes.
    testing::writeText(run / "metrics.jsonl", "{\"step\":0}\n");
    auto fetched = parseRemotePoll(pollInShell(folder, "runs/r", 30), 30);
    QVERIFY(fetched.has_value());
    QCOMPARE(fetched->metrics_size, uint64_t{11});
    QVERIFY(fetched->new_metrics.empty());
    // No metrics log yet: no "cannot open metrics.jsonl" among the sections.
    fs::remove(run / "metrics.jsonl");
    const std::string output = pollInShell(folder, "runs/r", 0);
    QVERIFY2(output.find("metrics.jsonl") == std::string::npos, output.c_str());
    fetched = parseRemotePoll(output, 0);
    QVERIFY(fetched.has_value());
    QCOMPARE(fetched->metrics_size, uint64_t{0});
    QVERIFY(fetched->new_metrics.empty());
    // No run folder yet: nothing, and that is a valid answer.
    fetched = parseRemotePoll(pollInShell(folder, "runs/absent", 0), 0);
    QVERIFY(fetched.has_value());
    QVERIFY(!fetched->run_folder_exists);
    QVERIFY(!fs::exists(folder / "PWNED") && !fs::exists(folder.parent_path() / "PWNED"));
  }

  // A poll whose output is not exactly as framed is refused, so its bytes never reach the mirror:
  // a shell message among the metrics bytes, a byte missing, text before the size, a cut answer.
  void strayBytesInAPollAreNeverMirrored() {
    const fs::path folder = testing::makeScratchDir("remote-poll-stray");
    fs::create_directories(folder / "runs" / "r");
    testing::writeText(folder / "runs" / "r" / "metrics.jsonl", "{\"step\":0}\n{\"step\":1}\n");
    testing::writeText(folder / "runs" / "r" / "status.json", "{\"state\": \"running\"}\n");
    const std::string good = pollInShell(folder, "runs/r", 0);
    QVERIFY(parseRemotePoll(good, 0).has_value());
    // The size line has no newline: the first one opens the marker line, the next one closes it.
    const size_t metrics_at = good.find('\n', good.find('\n') + 1) + 1;
    QVERIFY(good.compare(metrics_at, 11, "{\"step\":0}\n") == 0);
    std::string stray = good;
    stray.insert(metrics_at, "bash: line 1: metrics.jsonl: No such file or directory\n");
    QVERIFY(!parseRemotePoll(stray, 0).has_value());
    std::string missing = good;
    missing.erase(metrics_at + 3, 1);
    QVERIFY(!parseRemotePoll(missing, 0).has_value());
    QVERIFY(
        !parseRemotePoll("Warning: Permanently added '127.0.0.1' (ED25519) to the list of known hosts.\r\n" + good, 0)
             .has_value());
    QVERIFY(!parseRemotePoll(good.substr(0, metrics_at + 5), 0).has_value());
    QVERIFY(!parseRemotePoll(good, 5).has_value());  // the bytes of another offset
  }

  // The launch target's hardware before a launch: `mixerlab probe --host` asks the remote mixerlab
  // over SSH (in the hostile-named folder) and reports its machine, this one here.
  void probeReportsTheRemoteMachine() {
    if (!no_sshd_.isEmpty()) QSKIP(qPrintable(no_sshd_));
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
    if (!no_sshd_.isEmpty()) QSKIP(qPrintable(no_sshd_));
    const fs::path local = dir_ / "local" / "runs" / "hostile";
    QProcess remote;
    remote.setProcessChannelMode(QProcess::MergedChannels);
    remote.start(QString::fromStdString(testing::cliPath().string()),
                 remoteArgs(local) + QStringList{"--", "train", "project.json", "--run", "mixer", "--run-id",
                                                 "it's a \"run\"; touch PWNED2"});
    QVERIFY(remote.waitForFinished(60000));
    const QString output = QString::fromUtf8(remote.readAll());
    QVERIFY(remote.exitCode() != 0);
    QVERIFY2(output.contains("run name") && output.contains("letters, digits, "), qPrintable(output));
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
