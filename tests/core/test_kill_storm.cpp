// Crash-safety tests with real CLI child processes: a kill storm SIGKILLs a tiny run at
// random moments (seeded), some of them while a checkpoint is being written, resumes it each time,
// and checks that the run ends exactly as an uninterrupted one: every step's metrics once and
// equal, and byte-identical final weights. A disk-full test trains into a 6 MiB tmpfs and checks the
// run fails with a clear message, a failed status, no .partial folder and no abort; another fills
// that disk up while the run trains and keeps it full, and checks the status
// still ends failed with the reason and the metrics log keeps no torn line (both skipped, saying
// why, where a tmpfs cannot be mounted).
#include <QtTest/QtTest>

#include <fcntl.h>
#include <signal.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <chrono>
#include <random>
#include <thread>

#include "core/runs/metrics_log.h"
#include "core/runs/run_status.h"
#include "core/train/checkpoint.h"
#include "core/util/atomic_file.h"
#include "tests/kill_storm_support.h"
#include "tests/small_disk.h"
#include "tests/training_fixture.h"

using namespace mixerlab;
namespace fs = std::filesystem;

namespace {

constexpr int64_t kSteps = 300;

}  // namespace

class TestKillStorm : public QObject {
  Q_OBJECT
  fs::path dir_, project_;

  int runToEnd(const fs::path& out, bool resume) {
    QProcess p;
    p.start(QString::fromStdString(testing::cliPath().string()), testing::trainArgs(project_, "mixer", out, resume));
    p.waitForFinished(300000);
    if (p.exitCode() != 0) qWarning("%s", p.readAllStandardError().constData());
    return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
  }

 private Q_SLOTS:
  void initTestCase() {
    dir_ = testing::makeScratchDir("kill-storm");
    project_ = testing::writeTinyProject(dir_,
                                         R"(, "max_steps": 300, "schedule_steps": 300, "checkpoint_every": 10, )"
                                         R"("eval_every": 50, "keep_checkpoints": 3)",
                                         64, 64);
  }

  void killStormResumesExactly() {
    const fs::path reference = dir_ / "reference";
    QCOMPARE(runToEnd(reference, false), 0);
    const fs::path storm = dir_ / "storm";
    const fs::path run_dir = storm / "mixer";
    std::mt19937 rng(20261123);
    int kills = 0, inside_checkpoint = 0;
    const int wanted = qEnvironmentVariableIntValue("MIXERLAB_KILL_STORM") > 0
                           ? qEnvironmentVariableIntValue("MIXERLAB_KILL_STORM")
                           : 12;
    // Kill points are steps, not wall-clock delays, so the storm is the same on a fast or a loaded
    // machine: each attempt runs until its random target step (a few steps past where it resumed)
    // plus a random 0-20 ms, or, every third attempt, until a checkpoint is being written.
    for (int attempt = 0; attempt < wanted; ++attempt) {
      const int64_t resumed_at = testing::lastLoggedStep(run_dir);
      const int64_t target = std::min<int64_t>(kSteps - 10, resumed_at + 1 + static_cast<int64_t>(rng() % 25));
      const bool aim_at_checkpoint = attempt % 3 == 2;
      QProcess child;
      child.start(QString::fromStdString(testing::cliPath().string()),
                  testing::trainArgs(project_, "mixer", storm, attempt > 0));
      QVERIFY(child.waitForStarted());
      bool hit_partial = false;
      const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(2);
      while (child.state() == QProcess::Running && std::chrono::steady_clock::now() < give_up) {
        if (aim_at_checkpoint && testing::hiddenCheckpointFolderExists(run_dir / "checkpoints", ".partial-")) {
          hit_partial = true;
          break;
        }
        if (testing::lastLoggedStep(run_dir) >= target + (aim_at_checkpoint ? 15 : 0)) {
          std::this_thread::sleep_for(std::chrono::milliseconds(rng() % 21));
          break;
        }
        std::this_thread::sleep_for(std::chrono::microseconds(aim_at_checkpoint ? 200 : 2000));
      }
      QVERIFY2(child.state() == QProcess::Running, "the run ended before its kill point");
      ::kill(static_cast<pid_t>(child.processId()), SIGKILL);
      QVERIFY(child.waitForFinished(10000));
      ++kills;
      inside_checkpoint += hit_partial ? 1 : 0;
    }
    QCOMPARE(runToEnd(storm, true), 0);
    qInfo("%d kills, %d of them while a checkpoint was being written", kills, inside_checkpoint);

    const auto want = readMetrics(reference / "mixer" / "metrics.jsonl");
    const auto got = readMetrics(run_dir / "metrics.jsonl");
    QCOMPARE(got.size(), size_t{kSteps + 1});  // step 0 and every step once
    QCOMPARE(testing::comparableRecords(got), testing::comparableRecords(want));
    const fs::path last = "checkpoints/step-00000300/model.safetensors";
    QVERIFY(readFile(run_dir / last) == readFile(reference / "mixer" / last));
    QCOMPARE(readRunStatus(run_dir)->state, RunState::Finished);
    QVERIFY(!testing::hiddenCheckpointFolderExists(run_dir / "checkpoints", ".partial-"));
  }

  void diskFullFailsCleanly() {
    const fs::path mount_point = dir_ / "small-disk";
    const testing::SmallDisk disk(mount_point, "6m");
    if (!disk.error().isEmpty()) QSKIP(qPrintable(disk.error()));
    QProcess p;
    p.start(QString::fromStdString(testing::cliPath().string()),
            testing::trainArgs(project_, "mixer", mount_point, false));
    QVERIFY(p.waitForFinished(300000));
    const QString err = QString::fromUtf8(p.readAllStandardError());
    QCOMPARE(p.exitStatus(), QProcess::NormalExit);  // no abort, no segfault
    QCOMPARE(p.exitCode(), 1);
    QVERIFY2(err.contains("No space left") || err.contains("cannot write") || err.contains("the disk is full"),
             qPrintable(err));
    const fs::path run_dir = mount_point / "mixer";
    QVERIFY(!testing::hiddenCheckpointFolderExists(run_dir / "checkpoints", ".partial-"));
    QVERIFY(latestCheckpoint(run_dir / "checkpoints").has_value());  // the last good one is kept
    const auto status = readRunStatus(run_dir);
    QVERIFY(status.has_value());
    QCOMPARE(status->state, RunState::Failed);
    qInfo("disk full at step %lld: %s", static_cast<long long>(status->step), qPrintable(err.section('\n', 0, 0)));
  }

  // The disk fills up while the run trains and STAYS full (a filler takes all but
  // 20 KiB of it; checkpoints are rare, so the metrics log and the status meet the full disk). The
  // run exits 1 with a clear message, status.json ends "failed" with the reason (the space set aside
  // at the start is freed for it), the metrics log ends with a whole line and every line parses,
  // and the reserve file is gone.
  void diskThatStaysFullStillGetsAFinalStatus() {
    const fs::path mount_point = dir_ / "full-disk";
    const testing::SmallDisk disk(mount_point, "6m");
    if (!disk.error().isEmpty()) QSKIP(qPrintable(disk.error()));
    const fs::path project_dir = dir_ / "stays-full";
    fs::create_directories(project_dir);
    const fs::path project = testing::writeTinyProject(
        project_dir, R"(, "max_steps": 5000, "schedule_steps": 5000, "checkpoint_every": 5000, "eval_every": 50)", 64,
        64);
    const fs::path run_dir = mount_point / "mixer";
    QProcess p;
    p.start(QString::fromStdString(testing::cliPath().string()),
            testing::trainArgs(project, "mixer", mount_point, false));
    QVERIFY(p.waitForStarted());
    QTRY_VERIFY_WITH_TIMEOUT(p.state() != QProcess::Running || testing::lastLoggedStep(run_dir) >= 3, 240000);
    QVERIFY2(p.state() == QProcess::Running, qPrintable(QString::fromUtf8(p.readAllStandardError())));
    QVERIFY(fs::exists(run_dir / ".final-status-reserve"));  // set aside before the disk filled up
    QVERIFY(testing::fillDiskLeaving(mount_point / "filler", 20 * 1024));
    QVERIFY(p.waitForFinished(300000));
    const QString err = QString::fromUtf8(p.readAllStandardError());
    QCOMPARE(p.exitStatus(), QProcess::NormalExit);  // no abort, no segfault
    QCOMPARE(p.exitCode(), 1);
    QVERIFY2(err.contains("the disk is full") || err.contains("No space left"), qPrintable(err));
    const auto status = readRunStatus(run_dir);
    QVERIFY(status.has_value());
    QCOMPARE(status->state, RunState::Failed);
    QVERIFY2(QString::fromStdString(status->reason).contains("disk is full"), status->reason.c_str());
    const std::string metrics = readFile(run_dir / "metrics.jsonl");
    QVERIFY(!metrics.empty());
    QVERIFY2(metrics.back() == '\n', "metrics.jsonl ends with a torn line");
    int skipped = 0;
    const auto records = readMetrics(run_dir / "metrics.jsonl", &skipped);
    QCOMPARE(skipped, 0);
    QVERIFY(records.size() >= 4);
    QVERIFY(status->step >= records.back().step - 1);
    QVERIFY(!fs::exists(run_dir / ".final-status-reserve"));
    qInfo("disk stayed full at step %lld: %s", static_cast<long long>(status->step), status->reason.c_str());
  }
};

QTEST_GUILESS_MAIN(TestKillStorm)
#include "test_kill_storm.moc"
