// Run directory tests: metrics log (torn last line, incremental tail and its rewrite detection,
// truncation on resume), status records (a killed process reads as stopped), atomic writes, LR
// schedule.
#include <QtTest/QtTest>

#include <unistd.h>

#include <fstream>

#include "core/runs/metrics_log.h"
#include "core/runs/run_directory.h"
#include "core/runs/run_status.h"
#include "core/runs/run_summary.h"
#include "core/train/lr_schedule.h"
#include "core/util/atomic_file.h"
#include "tests/test_support.h"

using namespace mixerlab;
namespace fs = std::filesystem;

class TestRuns : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void tornLastLineIsIgnored() {
    const fs::path file = testing::makeScratchDir("runs") / "metrics.jsonl";
    {
      MetricsWriter w(file);
      for (int s = 1; s <= 3; ++s) {
        MetricsRecord r;
        r.step = s;
        r.train_loss = 4.0 - s;
        w.append(r);
      }
    }
    std::ofstream(file, std::ios::app) << "{\"step\": 4, \"train_lo";  // a killed writer
    auto records = readMetrics(file);
    QCOMPARE(records.size(), size_t{3});
    QCOMPARE(records.back().step, int64_t{3});
    QCOMPARE(*records.back().train_loss, 1.0);
    QVERIFY(!records.back().eval_loss);
    // A new writer (a resumed run) drops the torn fragment so the next record is a clean line.
    {
      MetricsWriter w(file);
      MetricsRecord r;
      r.step = 4;
      r.eval_loss = 2.5;
      w.append(r);
    }
    records = readMetrics(file);
    QCOMPARE(records.size(), size_t{4});
    QCOMPARE(*records.back().eval_loss, 2.5);
  }

  void tailReadsOnlyNewCompleteRecordsAndDetectsTruncation() {
    const fs::path file = testing::makeScratchDir("runs") / "metrics.jsonl";
    MetricsTail tail(file);
    QVERIFY(tail.poll().empty());  // no file yet
    MetricsWriter w(file);
    MetricsRecord r;
    r.step = 1;
    w.append(r);
    QCOMPARE(tail.poll().size(), size_t{1});
    QVERIFY(tail.poll().empty());
    std::ofstream(file, std::ios::app) << "{\"step\": 2}";  // half written
    QVERIFY(tail.poll().empty());
    std::ofstream(file, std::ios::app) << "\n";
    auto more = tail.poll();
    QCOMPARE(more.size(), size_t{1});
    QCOMPARE(more[0].step, int64_t{2});
    truncateMetricsAfterStep(file, 0);
    QVERIFY(tail.poll().empty());
    QVERIFY(tail.wasReset());
  }

  // A resume rewrites metrics.jsonl (truncation after the checkpoint) and then appends; when the
  // GUI polls only after the new file has grown past the old read offset, a size check alone would
  // read on from the middle of a line of the new file and miss the rewrite.
  void tailNoticesARewriteThatGrewPastTheOldOffset() {
    const fs::path file = testing::makeScratchDir("runs") / "metrics.jsonl";
    auto append = [&](int64_t step, double loss) {
      MetricsWriter w(file);
      MetricsRecord r;
      r.step = step;
      r.train_loss = loss;
      w.append(r);
    };
    for (int64_t s = 1; s <= 4; ++s) append(s, 5.0 - 0.1 * s);
    MetricsTail tail(file);
    QCOMPARE(tail.poll().size(), size_t{4});
    QVERIFY(!tail.wasReset());

    truncateMetricsAfterStep(file, 2);                           // the resume keeps steps 1-2
    for (int64_t s = 3; s <= 8; ++s) append(s, 3.0 - 0.01 * s);  // and redoes 3.. with new values
    const auto records = tail.poll();
    QVERIFY(tail.wasReset());
    QCOMPARE(records.size(), size_t{8});
    for (size_t i = 0; i < records.size(); ++i) QCOMPARE(records[i].step, static_cast<int64_t>(i + 1));
    QCOMPARE(*records[2].train_loss, 2.97);
    QVERIFY(tail.poll().empty());
    QVERIFY(!tail.wasReset());

    // A rewrite in place (same inode, e.g. by a tool) that is longer than what was read is noticed
    // by the bytes before the offset.
    const auto read_bytes = fs::file_size(file);
    std::string text;
    for (int64_t s = 1; s <= 30; ++s) text += "{\"step\": " + std::to_string(s) + ", \"train_loss\": 1.5}\n";
    QVERIFY(text.size() > read_bytes);
    std::ofstream(file, std::ios::binary | std::ios::trunc) << text;
    const auto rewritten = tail.poll();
    QVERIFY(tail.wasReset());
    QCOMPARE(rewritten.size(), size_t{30});
    QCOMPARE(*rewritten.front().train_loss, 1.5);
  }

  void truncateKeepsStepsUpToCheckpoint() {
    const fs::path file = testing::makeScratchDir("runs") / "metrics.jsonl";
    {
      MetricsWriter w(file);
      for (int s = 0; s <= 9; ++s) {
        MetricsRecord r;
        r.step = s;
        w.append(r);
      }
    }
    truncateMetricsAfterStep(file, 6);
    auto records = readMetrics(file);
    QCOMPARE(records.size(), size_t{7});
    QCOMPARE(records.back().step, int64_t{6});
  }

  // Issue 14, bug 11: `mixerlab runs` showed a running run's step (status.json, written every few
  // seconds) behind the step of its best eval (metrics.jsonl). The summary takes the later of both.
  void summaryStepIsNeverBehindItsMetrics() {
    const auto dir = testing::makeScratchDir("summary-step");
    testing::writeText(
        dir / "metrics.jsonl",
        "{\"step\":20,\"tokens\":100,\"eval_loss\":5.0}\n{\"step\":60,\"tokens\":300,\"eval_loss\":4.0}\n");
    RunStatus status;
    status.state = RunState::Running;
    status.pid = getpid();
    status.host = hostName();
    status.step = 20;  // written before the step-60 eval
    writeRunStatus(dir, status);
    const RunSummary summary = summarizeRun(dir);
    QCOMPARE(summary.step, int64_t{60});
    QCOMPARE(*summary.best_eval_loss, 4.0);
  }

  void deadProcessReadsAsStopped() {
    const fs::path dir = testing::makeScratchDir("runs");
    RunStatus s;
    s.state = RunState::Running;
    s.host = hostName();
    s.pid = ::getpid();
    writeRunStatus(dir, s);
    QCOMPARE(readRunStatus(dir)->resolvedForReader().state, RunState::Running);
    s.pid = 999999;  // above pid_max on Linux defaults: never a live process
    writeRunStatus(dir, s);
    const auto read = readRunStatus(dir)->resolvedForReader();
    QCOMPARE(read.state, RunState::Stopped);
    QVERIFY(QString::fromStdString(read.reason).contains("resume"));
    s.state = RunState::Failed;
    s.reason = "loss became NaN";
    writeRunStatus(dir, s);
    QCOMPARE(readRunStatus(dir)->reason, std::string("loss became NaN"));
  }

  void atomicWriteLeavesNoTemporaryFiles() {
    const fs::path dir = testing::makeScratchDir("runs");
    writeFileAtomic(dir / "a.json", "one");
    writeFileAtomic(dir / "a.json", "two");
    QCOMPARE(readFile(dir / "a.json"), std::string("two"));
    int files = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++files;
    QCOMPARE(files, 1);
    QVERIFY_THROWS_EXCEPTION(std::exception, writeFileAtomic("/proc/nope/a.json", "x"));
  }

  void learningRateSchedule() {
    // Warmup 10 to peak 1.0, linear decay to 0 at step 110.
    QCOMPARE(learningRateAt(0, 1.0, 10, 110, "linear", 0.0), 0.1);
    QCOMPARE(learningRateAt(9, 1.0, 10, 110, "linear", 0.0), 1.0);
    QCOMPARE(learningRateAt(60, 1.0, 10, 110, "linear", 0.0), 0.5);
    QCOMPARE(learningRateAt(110, 1.0, 10, 110, "linear", 0.0), 0.0);
    QCOMPARE(learningRateAt(60, 1.0, 10, 110, "cosine", 0.0), 0.5);
    QVERIFY(qAbs(learningRateAt(110, 1.0, 10, 110, "cosine", 0.1) - 0.1) < 1e-12);
    QCOMPARE(learningRateAt(500, 1.0, 10, 110, "constant", 0.0), 1.0);
  }

  // RunPaths answers where a checkpoint's run and a run's project are, whatever the spelling.
  void runFolderOfACheckpointFolder() {
    const fs::path run = "/p/runs/mixer";
    for (const fs::path& checkpoint :
         {run / "checkpoints" / "step-5", run / "checkpoints" / "step-5" / "", run / "checkpoints" / "step-5" / "."}) {
      QCOMPARE(QString::fromStdString(RunPaths::ofCheckpoint(checkpoint).root.string()), QString("/p/runs/mixer"));
      QVERIFY(RunPaths::holdsCheckpoint(checkpoint));
    }
    QCOMPARE(RunPaths::ofCheckpoint(run / "checkpoints" / "step-5").checkpoints(), run / "checkpoints");
    QVERIFY(!RunPaths::holdsCheckpoint("/exported/step-5"));  // a checkpoint copied out of its run
    QCOMPARE(QString::fromStdString(RunPaths{run}.projectFolder().string()), QString("/p"));
    QCOMPARE(QString::fromStdString(RunPaths{run / ""}.projectFolder().string()), QString("/p"));
  }
};

QTEST_APPLESS_MAIN(TestRuns)
#include "test_runs.moc"
