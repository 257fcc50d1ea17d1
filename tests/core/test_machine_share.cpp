// Whether a run had the machine to itself: /proc/stat and /proc/self/stat are parsed field by
// field (a command name with spaces and parentheses included), other processes' CPU use is the
// machine's busy time less this process's and its local ranks', a real busy child process shows
// as about a core of other work, and a trained run logs other_cpu_cores with its train records.
#include <torch/torch.h>
#include <QtTest/QtTest>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "core/config/project_config.h"
#include "core/runs/metrics_log.h"
#include "core/train/machine_share.h"
#include "core/train/trainer.h"
#include "tests/training_fixture.h"

using namespace mixerlab;
namespace fs = std::filesystem;

class TestMachineShare : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void procFilesAreReadFieldByField() {
    // user nice system idle iowait irq softirq steal guest guest_nice
    const auto ticks = parseMachineTicks("cpu  100 20 30 400 50 6 7 8 90 9\ncpu0 1 2 3 4 5 6 7 8 9 10\n");
    QVERIFY(ticks.has_value());
    QCOMPARE(ticks->busy, uint64_t{100 + 20 + 30 + 6 + 7 + 8});
    QCOMPARE(ticks->total, uint64_t{100 + 20 + 30 + 6 + 7 + 8 + 400 + 50});
    QVERIFY(!parseMachineTicks("cpu0 1 2 3 4\n").has_value());  // not the aggregate line
    QVERIFY(!parseMachineTicks("cpu 1 2\n").has_value());
    // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime ...
    const std::string stat = "4242 (my (odd) trainer) R 1 2 3 4 5 6 7 8 9 10 1234 567 0 0 20 0 8";
    QCOMPARE(parseProcessTicks(stat), std::optional<uint64_t>(1234 + 567));
    QVERIFY(!parseProcessTicks("4242 no parenthesis").has_value());
    QVERIFY(!parseProcessTicks("4242 (short) R 1 2").has_value());
  }

  void otherWorkIsTheBusyTimeNotOurs() {
    // 2 CPUs, 200 ticks each passed (400 in all); 300 busy, 100 of them ours: 1 core of other work.
    const MachineTicks before{1000, 5000}, after{1300, 5400};
    QCOMPARE(*otherCpuCores(before, after, 50, 150, 2, 0), 1.0);
    // A local peer rank used about what we did (100 ticks more): half a core of other work is left.
    QCOMPARE(*otherCpuCores(before, after, 50, 150, 2, 1), 0.5);
    QCOMPARE(*otherCpuCores(before, after, 50, 200, 2, 1), 0.0);        // 150 ours, 150 the peer's
    QCOMPARE(*otherCpuCores(before, after, 50, 350, 2, 0), 0.0);        // never below zero
    QVERIFY(!otherCpuCores(before, before, 50, 50, 2, 0).has_value());  // no time passed
  }

  void aBusyProcessShowsAsOtherWork() {
    MachineShareSampler sampler;
    const pid_t child = fork();
    if (child == 0) {
      volatile uint64_t spin = 0;
      for (;;) spin = spin + 1;
    }
    QVERIFY(child > 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(700));
    const auto others = sampler.sample();
    kill(child, SIGKILL);
    waitpid(child, nullptr, 0);
    QVERIFY(others.has_value());
    // The child alone is up to one core; the machine's other work only adds to it.
    QVERIFY2(*others >= 0.5, qPrintable(QString::number(*others)));
  }

  void aTrainedRunLogsItsShareOfTheMachine() {
    const fs::path dir = testing::makeScratchDir("machine-share");
    const ProjectConfig project = loadProject(testing::writeTinyProject(dir));
    QCOMPARE(testing::trainTinyRun(project, project.run("mixer"), dir / "mixer").state, RunState::Finished);
    int logged = 0, train_records = 0;
    for (const MetricsRecord& r : readMetrics(dir / "mixer" / "metrics.jsonl")) {
      if (!r.train_loss) continue;
      ++train_records;
      const auto it = r.extra_metrics.find("other_cpu_cores");
      if (it == r.extra_metrics.end()) continue;
      ++logged;
      QVERIFY(it->second >= 0 && it->second < 1024);
    }
    // A record whose interval was shorter than one clock tick (10 ms) has none: the next one
    // covers the longer interval. The tiny run's steps take a few ms, so not every record has it.
    QVERIFY(train_records >= 10);
    QVERIFY2(logged >= 1, qPrintable(QString("%1 of %2").arg(logged).arg(train_records)));
  }
};

QTEST_MAIN(TestMachineShare)
#include "test_machine_share.moc"
