// The one owner of fork/exec (core/util/subprocess.h), with real child processes: exit codes and
// signals, output through pipes (both streams at once, more than a pipe holds) and appended to a
// file, an environment variable that reaches only the child, a program that cannot be started named
// by the parent (and code 127 from runCapture), a time limit that kills, stdin from /dev/null, stop
// signals reset for the child, the handle reaping what it started, the one-time OpenMP re-exec, the
// parent-death signal (a child that dies with its parent, killed by SIGKILL), descriptors passed on
// to the child, the rank launcher over it (with its watchdog naming a stopped rank), and 200 spawns
// while another thread hammers setenv and malloc: the child makes no call that could wait for a
// lock that thread held at fork time, so none ever hangs.
#include <QtTest/QtTest>

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <future>
#include <sstream>
#include <thread>

#include "core/distributed/rank_launcher.h"
#include "core/util/error.h"
#include "core/util/openmp_wait.h"
#include "core/util/subprocess.h"
#include "tests/test_support.h"

using namespace mixerlab;
namespace fs = std::filesystem;

namespace {

SubprocessSpec shell(const std::string& script) {
  SubprocessSpec spec;
  spec.program = "/bin/sh";
  spec.args = {"-c", script};
  return spec;
}

SubprocessSpec piped(SubprocessSpec spec) {
  spec.stdout_to = ChildOutput::kPipe;
  spec.stderr_to = ChildOutput::kPipe;
  return spec;
}

const char* policy() {
  const char* value = std::getenv("OMP_WAIT_POLICY");
  return value != nullptr ? value : "unset";
}

std::string readAll(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// SIGKILL to every child of this process (a hung child must not outlive a failed test).
void killOwnChildren() {
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) return;
  while (const dirent* entry = ::readdir(proc)) {
    const int pid = std::atoi(entry->d_name);
    if (pid <= 0) continue;
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), {});
    const size_t close_paren = text.rfind(')');
    if (close_paren == std::string::npos) continue;
    std::istringstream fields(text.substr(close_paren + 2));
    std::string state;
    int parent = 0;
    fields >> state >> parent;
    if (parent == ::getpid()) ::kill(pid, SIGKILL);
  }
  ::closedir(proc);
}

// Whether the process has ended (gone, or a zombie no one reaped yet).
bool processEnded(pid_t pid) {
  const std::string stat = readAll("/proc/" + std::to_string(pid) + "/stat");
  const size_t close_paren = stat.rfind(')');
  if (close_paren == std::string::npos || close_paren + 2 >= stat.size()) return true;
  return stat[close_paren + 2] == 'Z' || stat[close_paren + 2] == 'X';
}

// Reads `fd` until a line starting with `prefix` has arrived; returns the rest of that line, or an
// empty string when none came within timeout_ms.
std::string awaitLine(int fd, const std::string& prefix, int timeout_ms) {
  std::string text = "\n";
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (std::chrono::steady_clock::now() < deadline) {
    const size_t at = text.find("\n" + prefix);
    if (at != std::string::npos) {
      const size_t end = text.find('\n', at + 1);
      if (end != std::string::npos) return text.substr(at + 1 + prefix.size(), end - at - 1 - prefix.size());
    }
    pollfd polled{fd, POLLIN, 0};
    if (::poll(&polled, 1, 100) <= 0) continue;
    char buffer[4096];
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n <= 0) break;
    text.append(buffer, static_cast<size_t>(n));
  }
  return {};
}

// launchRanks(plan) on another thread; when it has not returned within timeout_s, this process's
// children (its ranks) are killed so that it returns, and nullopt comes back.
std::optional<LaunchResult> launchWithin(const LaunchPlan& plan, int timeout_s) {
  auto launched = std::async(std::launch::async, [plan] { return launchRanks(plan); });
  if (launched.wait_for(std::chrono::seconds(timeout_s)) == std::future_status::ready) return launched.get();
  while (launched.wait_for(std::chrono::milliseconds(100)) != std::future_status::ready) killOwnChildren();
  return std::nullopt;
}

}  // namespace

class TestSubprocess : public QObject {
  Q_OBJECT
  fs::path dir_;

 private Q_SLOTS:
  void initTestCase() {
    if (qEnvironmentVariableIsSet("MIXERLAB_TEST_PARENT_DEATH_PROBE")) return;  // a probe, killed: no scratch left
    dir_ = testing::makeScratchDir("subprocess");
  }

  void exitCodesAndSignalsComeBack() {
    const CapturedRun exited = runToEnd(shell("exit 7"), 30);
    QCOMPARE(exited.exit_code, 7);
    QCOMPARE(exited.signal, 0);
    QVERIFY(!exited.succeeded());
    QCOMPARE(QString::fromStdString(describeExit(exited)), QString("exited with code 7"));
    QVERIFY(runToEnd(shell("exit 0"), 30).succeeded());

    const CapturedRun killed = runToEnd(shell("kill -TERM $$"), 30);
    QCOMPARE(killed.signal, SIGTERM);
    QCOMPARE(killed.exit_code, -1);
    QCOMPARE(killed.shellCode(), 128 + SIGTERM);
    QVERIFY(QString::fromStdString(describeExit(killed)).startsWith("was killed by signal 15"));
    QVERIFY(!killed.timed_out);
  }

  void pipesCollectBothStreams() {
    const CapturedRun run = runToEnd(piped(shell("echo out; echo err >&2; echo more")), 30);
    QCOMPARE(QString::fromStdString(run.out), QString("out\nmore\n"));
    QCOMPARE(QString::fromStdString(run.err), QString("err\n"));
    QVERIFY(run.max_rss_bytes > 0);
    // Far more than a pipe holds on each stream, stderr written while stdout is still unread: a
    // reader that drained one stream to its end first would wait forever.
    const CapturedRun big =
        runToEnd(piped(shell("head -c 300000 /dev/zero | tr '\\000' a; head -c 300000 /dev/zero | tr '\\000' b >&2; "
                             "head -c 300000 /dev/zero | tr '\\000' c")),
                 60);
    QVERIFY(!big.timed_out);
    QCOMPARE(big.out.size(), size_t{600000});
    QCOMPARE(big.err.size(), size_t{300000});
    QCOMPARE(big.out.back(), 'c');
    QCOMPARE(big.err.front(), 'b');

    SubprocessSpec merged = piped(shell("echo one; echo two >&2; echo three"));
    merged.stderr_to = ChildOutput::kSameAsStdout;
    const CapturedRun together = runToEnd(merged, 30);
    QCOMPARE(QString::fromStdString(together.out), QString("one\ntwo\nthree\n"));
    QVERIFY(together.err.empty());
  }

  void outputIsAppendedToAFile() {
    const fs::path file = dir_ / "output.txt";
    testing::writeText(file, "before\n");
    SubprocessSpec spec = shell("echo out; echo err >&2");
    spec.stdout_to = ChildOutput::kAppendToFile;
    spec.stdout_file = file;
    spec.stderr_to = ChildOutput::kSameAsStdout;
    QVERIFY(runToEnd(spec, 30).succeeded());
    QVERIFY(runToEnd(spec, 30).succeeded());
    QCOMPARE(QString::fromStdString(readAll(file)), QString("before\nout\nerr\nout\nerr\n"));

    SubprocessSpec nowhere = shell("echo lost");
    nowhere.stdout_to = ChildOutput::kAppendToFile;
    nowhere.stdout_file = dir_ / "no-such-folder" / "output.txt";
    try {
      spawn(nowhere);
      QFAIL("an output file in a missing folder was accepted");
    } catch (const MixerLabError& e) {
      QVERIFY2(QString(e.what()).contains("cannot open " + QString::fromStdString(nowhere.stdout_file.string())),
               e.what());
    }
  }

  void environmentOverrideReachesOnlyTheChild() {
    ::setenv("MIXERLAB_SUBPROCESS_TEST", "parent", 1);
    ::unsetenv("MIXERLAB_SUBPROCESS_NEW");
    SubprocessSpec spec =
        piped(shell("printf '%s|%s|%s|' \"$MIXERLAB_SUBPROCESS_TEST\" \"$MIXERLAB_SUBPROCESS_NEW\" \"$HOME\"; "
                    "env | grep -c '^MIXERLAB_SUBPROCESS_TEST='"));
    spec.env = {{"MIXERLAB_SUBPROCESS_TEST", "first"},
                {"MIXERLAB_SUBPROCESS_NEW", "new value"},
                {"MIXERLAB_SUBPROCESS_TEST", "child"}};
    const CapturedRun run = runToEnd(spec, 30);
    const std::string home = std::getenv("HOME") ? std::getenv("HOME") : "";
    QCOMPARE(QString::fromStdString(run.out), QString::fromStdString("child|new value|" + home + "|1\n"));
    QCOMPARE(QString(std::getenv("MIXERLAB_SUBPROCESS_TEST")), QString("parent"));
    QVERIFY(std::getenv("MIXERLAB_SUBPROCESS_NEW") == nullptr);

    SubprocessSpec bad = shell("true");
    bad.env = {{"A=B", "x"}};
    QVERIFY_THROWS_EXCEPTION(MixerLabError, spawn(bad));  // no variable name
  }

  void aProgramThatCannotStartIsNamedByTheParent() {
    SubprocessSpec missing;
    missing.program = (dir_ / "no-such-program").string();
    try {
      spawn(missing);
      QFAIL("a missing program started");
    } catch (const MixerLabError& e) {
      QCOMPARE(QString::fromStdString(e.problem()),
               QString::fromStdString("cannot run " + missing.program + ": No such file or directory"));
      QVERIFY(!e.fix().empty());
    }
    // The child that failed to exec was reaped: this process has no child left.
    QCOMPARE(::waitpid(-1, nullptr, WNOHANG), -1);
    QCOMPARE(errno, ECHILD);

    const fs::path not_executable = dir_ / "not-executable.sh";
    testing::writeText(not_executable, "#!/bin/sh\necho hi\n");
    SubprocessSpec denied;
    denied.program = not_executable.string();
    try {
      spawn(denied);
      QFAIL("a file without the execute permission started");
    } catch (const MixerLabError& e) {
      QVERIFY2(QString(e.what()).contains("Permission denied"), e.what());
      QVERIFY2(QString(e.what()).contains("chmod +x"), e.what());
    }

    SubprocessSpec searched = commandSpec({"mixerlab-no-such-program", "--flag"});
    try {
      spawn(searched);
      QFAIL("a program that is nowhere in PATH started");
    } catch (const MixerLabError& e) {
      QVERIFY2(QString(e.what()).startsWith("cannot run mixerlab-no-such-program: not found in PATH"), e.what());
    }

    // runCapture words it like a shell: code 127 and the reason in the output, no exception.
    std::string output = "earlier\n";
    QCOMPARE(runCapture({"mixerlab-no-such-program"}, &output), 127);
    QVERIFY2(QString::fromStdString(output).startsWith("earlier\ncannot run mixerlab-no-such-program"), output.c_str());
    output.clear();
    QCOMPARE(runCapture({"sh", "-c", "echo found in PATH; echo to stderr >&2; exit 3"}, &output), 3);
    QCOMPARE(QString::fromStdString(output), QString("found in PATH\nto stderr\n"));
  }

  void aTimeLimitKillsTheChild() {
    for (const bool with_pipes : {true, false}) {
      SubprocessSpec spec;
      spec.program = "/bin/sleep";
      spec.args = {"30"};
      if (with_pipes) spec = piped(spec);
      const auto start = std::chrono::steady_clock::now();
      const CapturedRun run = runToEnd(spec, 0.5);
      const double took_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      QVERIFY(run.timed_out);
      QCOMPARE(run.signal, SIGKILL);
      QVERIFY2(took_s < 10, qPrintable(QString::number(took_s)));
    }
    // A child that ends in time is not marked.
    QVERIFY(!runToEnd(shell("sleep 0.1"), 20).timed_out);
  }

  void stdinIsDevNullWhenAsked() {
    // This process's stdin becomes a pipe for the test, so "inherited" is told apart from /dev/null.
    int fds[2];
    QCOMPARE(::pipe(fds), 0);
    const int saved_stdin = ::dup(STDIN_FILENO);
    ::dup2(fds[0], STDIN_FILENO);
    SubprocessSpec spec = piped(shell("readlink /proc/self/fd/0"));
    spec.stdin_from = ChildInput::kNull;
    const std::string from_null = runToEnd(spec, 30).out;
    spec.stdin_from = ChildInput::kInherit;
    const std::string inherited = runToEnd(spec, 30).out;
    ::dup2(saved_stdin, STDIN_FILENO);
    ::close(saved_stdin);
    ::close(fds[0]);
    ::close(fds[1]);
    QCOMPARE(QString::fromStdString(from_null), QString("/dev/null\n"));
    QVERIFY2(QString::fromStdString(inherited).startsWith("pipe:"), inherited.c_str());
    // commandSpec reads from /dev/null too (ssh never waits for a password on a terminal).
    QVERIFY(commandSpec({"ssh"}).stdin_from == ChildInput::kNull);
  }

  void stopSignalsCanBeResetForTheChild() {
    struct sigaction ignore {};
    struct sigaction previous {};
    ignore.sa_handler = SIG_IGN;
    ::sigaction(SIGTERM, &ignore, &previous);  // as under nohup: a child inherits "ignored"
    SubprocessSpec spec;
    spec.program = "/bin/sleep";
    spec.args = {"30"};
    Subprocess inheriting = spawn(spec);
    spec.default_stop_signals = true;
    Subprocess reset = spawn(spec);
    ::sigaction(SIGTERM, &previous, nullptr);
    QTest::qWait(200);  // both have exec'd sleep
    QVERIFY(inheriting.sendSignal(SIGTERM));
    QVERIFY(reset.sendSignal(SIGTERM));
    QTRY_VERIFY_WITH_TIMEOUT(reset.tryWait().has_value(), 5000);  // (a failure kills both: the handles)
    QCOMPARE(reset.wait().signal, SIGTERM);
    QTest::qWait(300);
    QVERIFY(!inheriting.tryWait());  // it ignores SIGTERM, as this process did
    QVERIFY(inheriting.sendSignal(SIGKILL));
    QCOMPARE(inheriting.wait().signal, SIGKILL);
    QVERIFY(!inheriting.sendSignal(SIGKILL));  // reaped: its pid is never signalled again
  }

  void theHandleReapsWhatItStarted() {
    SubprocessSpec spec;
    spec.program = "/bin/sleep";
    spec.args = {"30"};
    pid_t pid = -1;
    {
      Subprocess child = spawn(spec);
      pid = child.pid();
      QVERIFY(pid > 0);
      QVERIFY(!child.tryWait());
      QVERIFY(!child.finished());
      Subprocess moved = std::move(child);
      QCOMPARE(moved.pid(), pid);
      QCOMPARE(child.pid(), -1);
    }  // killed and reaped here: no zombie, no orphan
    QCOMPARE(::kill(pid, 0), -1);
    QCOMPARE(errno, ESRCH);

    Subprocess quick = spawn(shell("exit 4"));
    QCOMPARE(quick.wait().exit_code, 4);
    QCOMPARE(quick.wait().exit_code, 4);  // the same outcome again
    QCOMPARE(quick.tryWait()->exit_code, 4);
  }

  void openMpWaitReexecsOnceWithPassivePolicy() {
    if (qEnvironmentVariableIsSet("MIXERLAB_TEST_REEXEC_PROBE")) {  // the probe: this program, re-run
      std::printf("start pid=%d policy=%s\n", int(::getpid()), policy());
      std::fflush(stdout);
      std::vector<std::string> args;
      for (const QString& arg : QCoreApplication::arguments()) args.push_back(arg.toStdString());
      std::vector<char*> argv;
      for (std::string& arg : args) argv.push_back(arg.data());
      argv.push_back(nullptr);
      ensurePassiveOpenMpWait(argv.data());
      std::printf("running pid=%d policy=%s\n", int(::getpid()), policy());
      std::fflush(stdout);
      return;
    }
    SubprocessSpec probe;
    probe.program = "/usr/bin/env";
    probe.args = {"-u",
                  "OMP_WAIT_POLICY",
                  "-u",
                  "MIXERLAB_NO_REEXEC",
                  "MIXERLAB_TEST_REEXEC_PROBE=1",
                  currentExecutable(),
                  "openMpWaitReexecsOnceWithPassivePolicy"};
    probe = piped(probe);
    Subprocess child = spawn(probe);
    const int pid = child.pid();
    const CapturedRun run = child.collect(60);
    QVERIFY2(run.succeeded(), run.err.c_str());
    const QString out = QString::fromStdString(run.out);
    const QString pid_text = QString::number(pid);
    // env execs the test program in place, which re-execs itself once: one pid throughout.
    QVERIFY2(out.contains("start pid=" + pid_text + " policy=unset\n"), qPrintable(out));
    QVERIFY2(out.contains("start pid=" + pid_text + " policy=PASSIVE\n"), qPrintable(out));
    QVERIFY2(out.contains("running pid=" + pid_text + " policy=PASSIVE\n"), qPrintable(out));
    QCOMPARE(out.count("start pid="), 2);  // once, never a loop
  }

  // A child started with a parent-death signal ends when its parent is killed (SIGKILL: no code of
  // the parent runs); one started without it lives on as an orphan. The parent is this program,
  // re-run as a probe that starts `sleep 60` and waits to be killed.
  void parentDeathSignalEndsTheChild() {
    if (qEnvironmentVariableIsSet("MIXERLAB_TEST_PARENT_DEATH_PROBE")) {  // the probe
      SubprocessSpec sleeper;
      sleeper.program = "/bin/sleep";
      sleeper.args = {"60"};
      sleeper.parent_death_signal = qEnvironmentVariableIntValue("MIXERLAB_TEST_PARENT_DEATH_PROBE");
      Subprocess child = spawn(sleeper);
      std::printf("child %d\n", int(child.pid()));
      std::fflush(stdout);
      std::this_thread::sleep_for(std::chrono::seconds(60));  // the test kills this process first
      return;
    }
    for (const int parent_death_signal : {SIGKILL, SIGTERM, 0}) {
      SubprocessSpec probe;
      probe.program = currentExecutable();
      probe.args = {"parentDeathSignalEndsTheChild"};
      probe.env = {{"MIXERLAB_TEST_PARENT_DEATH_PROBE", std::to_string(parent_death_signal)}};
      probe.stdout_to = ChildOutput::kPipe;
      Subprocess parent = spawn(probe);
      const std::string line = awaitLine(parent.stdoutFd(), "child ", 30000);
      const pid_t child = static_cast<pid_t>(std::atoi(line.c_str()));
      QVERIFY2(child > 0, "the probe did not start its child");
      auto no_orphan = qScopeGuard([child] { ::kill(child, SIGKILL); });
      QVERIFY(!processEnded(child));
      QVERIFY(parent.sendSignal(SIGKILL));
      QCOMPARE(parent.wait().signal, SIGKILL);
      if (parent_death_signal != 0) {
        QTRY_VERIFY2_WITH_TIMEOUT(processEnded(child), "the child outlived its parent", 5000);
      } else {
        QTest::qWait(500);
        QVERIFY2(!processEnded(child), "a child without a parent-death signal ended with its parent");
      }
    }
    SubprocessSpec bad = shell("true");
    bad.parent_death_signal = NSIG + 1;
    QVERIFY_THROWS_EXCEPTION(MixerLabError, spawn(bad));
  }

  // A descriptor listed in inherited_fds stays open in the child under its number (bash: the
  // number may pass 9); close-on-exec ones not listed do not reach it.
  void inheritedDescriptorsReachTheChild() {
    int fds[2];
    QCOMPARE(::pipe2(fds, O_CLOEXEC), 0);
    auto close_pipe = qScopeGuard([&] {
      ::close(fds[0]);
      if (fds[1] >= 0) ::close(fds[1]);
    });
    SubprocessSpec spec;
    spec.program = "/bin/bash";
    spec.args = {"-c", "echo passed >&" + std::to_string(fds[1])};
    spec.stderr_to = ChildOutput::kNull;
    const CapturedRun closed = runToEnd(spec, 30);
    QVERIFY2(!closed.succeeded(), "a close-on-exec descriptor reached the child");
    spec.inherited_fds = {fds[1]};
    QVERIFY(runToEnd(spec, 30).succeeded());
    ::close(fds[1]);
    fds[1] = -1;
    char buffer[64] = {};
    QCOMPARE(QString::fromLatin1(buffer, static_cast<int>(::read(fds[0], buffer, sizeof buffer))), QString("passed\n"));
    spec.inherited_fds = {STDOUT_FILENO};
    QVERIFY_THROWS_EXCEPTION(MixerLabError, spawn(spec));  // a standard stream is not passed this way
  }

  // The launcher's watchdog over the ranks' heartbeats (bash ranks write "step N" datagrams to the
  // socket the launcher passed them): a rank that stops itself (SIGSTOP) after its first step is
  // named as frozen while the other keeps beating at the same step; two ranks that beat but never
  // advance are both named; ranks that advance are never failed.
  void rankLauncherFailsAStalledRank() {
    const std::string socket = "fd=${MIXERLAB_LAUNCHER_HEARTBEAT%%:*}; ";
    LaunchPlan plan;
    plan.program = "/bin/bash";
    plan.nproc = 2;
    plan.grace_s = 1;
    plan.stall_timeout_s = 3;
    plan.args = {"-c", socket +
                           "if [ \"$RANK\" = 1 ]; then printf 'step 3' >&$fd; kill -STOP $$; fi; "
                           "while :; do printf 'step 3' >&$fd; sleep 0.2; done"};
    const auto start = std::chrono::steady_clock::now();
    const std::optional<LaunchResult> frozen = launchWithin(plan, 30);
    const double took_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    QVERIFY2(frozen, "the launcher waited for a stopped rank");
    const QString message = QString::fromStdString(frozen->message);
    QVERIFY(frozen->stalled);
    QCOMPARE(frozen->exit_code, 1);
    QVERIFY2(message.startsWith("rank 1 of 2 (pid ") &&
                 message.contains("made no progress for 3 s and sent no heartbeat: stopped or frozen at step 3"),
             qPrintable(message));
    QVERIFY2(!message.contains("rank 0"), qPrintable(message));
    QVERIFY2(took_s > 2.5 && took_s < 15, qPrintable(QString::number(took_s)));

    plan.args = {"-c", socket + "while :; do printf 'step 7' >&$fd; sleep 0.2; done"};
    const std::optional<LaunchResult> waiting = launchWithin(plan, 30);
    QVERIFY2(waiting, "the launcher waited for ranks that never advance");
    const QString both = QString::fromStdString(waiting->message);
    QVERIFY2(both.startsWith("rank 0 of 2 (pid ") && both.contains(") and rank 1 of 2 (pid ") &&
                 both.contains("made no progress for 3 s, still running at step 7"),
             qPrintable(both));

    plan.args = {"-c", socket + "for i in $(seq 1 20); do printf \"step $i\" >&$fd; sleep 0.2; done"};
    const std::optional<LaunchResult> advancing = launchWithin(plan, 30);  // 4 s, a new step every 0.2 s
    QVERIFY(advancing);
    QVERIFY2(advancing->exit_code == 0, advancing->message.c_str());
    QCOMPARE(::waitpid(-1, nullptr, WNOHANG), -1);  // nothing left running or unreaped
  }

  void rankLauncherSetsTheRankVariables() {
    LaunchPlan plan;
    plan.program = "/bin/sh";
    plan.args = {"-c",
                 "[ \"$WORLD_SIZE\" = 2 ] && [ \"$LOCAL_WORLD_SIZE\" = 2 ] && [ \"$RANK\" = \"$LOCAL_RANK\" ] && "
                 "[ \"$MASTER_ADDR\" = 127.0.0.1 ] && [ \"$MASTER_PORT\" -gt 0 ] && exit 0; exit 9"};
    plan.nproc = 2;
    const LaunchResult ok = launchRanks(plan);
    QVERIFY2(ok.exit_code == 0, ok.message.c_str());

    plan.args = {"-c", "[ \"$RANK\" = 1 ] && exit 5; exec sleep 30"};
    plan.grace_s = 1;
    const LaunchResult failed = launchRanks(plan);
    QCOMPARE(failed.exit_code, 5);
    QVERIFY2(QString::fromStdString(failed.message).startsWith("rank 1 of 2 (pid "), failed.message.c_str());
    QVERIFY2(QString::fromStdString(failed.message).contains("exited with code 5"), failed.message.c_str());

    plan.program = (dir_ / "no-such-rank-program").string();
    try {
      launchRanks(plan);
      QFAIL("ranks of a missing program started");
    } catch (const MixerLabError& e) {
      QVERIFY2(QString(e.what()).startsWith("launch: cannot start rank 0 of 2: cannot run " +
                                            QString::fromStdString(plan.program)),
               e.what());
    }
    QCOMPARE(::waitpid(-1, nullptr, WNOHANG), -1);  // nothing left running or unreaped
  }

  // A world size above what the machine can run (kMaxRanksPerCore per online core) is refused
  // before any rank starts; exactly the bound starts every rank.
  void rankLauncherRefusesMoreRanksThanTheMachineRuns() {
    const int bound = kMaxRanksPerCore * static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN));
    QCOMPARE(maxLocalRanks(), bound);
    const fs::path marks = dir_ / "launch-bound";
    fs::create_directories(marks);
    LaunchPlan plan;
    plan.program = "/bin/sh";
    plan.args = {"-c", "touch " + marks.string() + "/rank-$RANK"};
    plan.nproc = bound + 1;
    const std::string error = testing::errorOf([&] { launchRanks(plan); });
    QVERIFY2(error.find("--nproc " + std::to_string(bound + 1) + " is more ranks than this machine can run") !=
                     std::string::npos &&
                 error.find("at most " + std::to_string(bound) + " ranks") != std::string::npos &&
                 error.find("nothing was started") != std::string::npos && error.find("fix:") != std::string::npos,
             error.c_str());
    QVERIFY(fs::is_empty(marks));
    plan.nproc = bound;
    const LaunchResult all = launchRanks(plan);
    QVERIFY2(all.exit_code == 0, all.message.c_str());
    QCOMPARE(static_cast<int>(std::distance(fs::directory_iterator(marks), fs::directory_iterator())), bound);
    QCOMPARE(::waitpid(-1, nullptr, WNOHANG), -1);
  }

  // SIGTERM to the launcher while its ranks start or run (the first rank sends it at once) stops
  // every rank within the grace, not after the ranks' 30 s, and returns 128 + 15.
  void rankLauncherStopsOnSigtermAtOnce() {
    LaunchPlan plan;
    plan.program = "/bin/sh";
    plan.args = {"-c", "[ \"$RANK\" = 0 ] && kill -TERM $PPID; exec sleep 30"};
    plan.nproc = maxLocalRanks();
    plan.grace_s = 1;
    const auto start = std::chrono::steady_clock::now();
    const LaunchResult stopped = launchRanks(plan);
    const double took_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    QCOMPARE(stopped.exit_code, 128 + SIGTERM);
    QVERIFY2(took_s < 10, qPrintable(QString::number(took_s)));
    QCOMPARE(::waitpid(-1, nullptr, WNOHANG), -1);
  }

  // fork copies only the calling thread; a lock another thread held then stays held in the child.
  // A child that called setenv (the environment's lock) or the like before exec would hang.
  void spawnsNeverHangWhileAnotherThreadHoldsLocks() {
    ::setenv("MIXERLAB_SUBPROCESS_HAMMER", "0", 1);  // replaced in place from now on
    std::atomic<bool> stop{false}, abandon{false};
    std::thread hammer([&stop] {
      for (unsigned i = 0; !stop.load(); ++i) {
        ::setenv("MIXERLAB_SUBPROCESS_HAMMER", std::to_string(i % 64).c_str(), 1);  // 64 values: bounded
        void* block = std::malloc(64 + i % 4096);
        std::free(block);
      }
    });
    auto spawns = std::async(std::launch::async, [&abandon] {
      int failures = 0;
      for (int i = 0; i < 200 && !abandon.load(); ++i) {
        SubprocessSpec spec;
        spec.program = "/bin/true";
        spec.env = {{"RANK", std::to_string(i)}};
        spec.stdin_from = ChildInput::kNull;
        if (!runToEnd(spec, 0).succeeded()) ++failures;
      }
      return failures;
    });
    bool hung = spawns.wait_for(std::chrono::seconds(60)) != std::future_status::ready;
    if (hung) {  // end the hung child (the spawn then returns) until the loop has stopped
      abandon = true;
      while (spawns.wait_for(std::chrono::milliseconds(100)) != std::future_status::ready) killOwnChildren();
    }
    stop = true;
    hammer.join();
    QVERIFY2(!hung, "a child hung between fork and exec: it waited for a lock another thread held at fork time");
    QCOMPARE(spawns.get(), 0);
  }

  void cleanupTestCase() { fs::remove_all(dir_); }
};

QTEST_GUILESS_MAIN(TestSubprocess)
#include "test_subprocess.moc"
