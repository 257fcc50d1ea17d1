// Run directory tests: metrics log (torn last line, incremental tail and its rewrite detection,
// truncation on resume, a failed append undone), status records (a killed process reads as
// stopped, a final state written when no new file can be), atomic writes, LR schedule.
#include <QtTest/QtTest>

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <fstream>

#include "core/runs/demo_project.h"
#include "core/runs/metrics_log.h"
#include "core/runs/run_directory.h"
#include "core/runs/run_log.h"
#include "core/runs/run_status.h"
#include "core/runs/run_summary.h"
#include "core/train/lr_schedule.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "tests/test_support.h"

using namespace mixerlab;
namespace fs = std::filesystem;

namespace {
// Limits the size of any file this process writes (RLIMIT_FSIZE) for its lifetime: a write past it
// fails part way with EFBIG (SIGXFSZ ignored), as a write does when the disk fills up.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    getrlimit(RLIMIT_FSIZE, &saved_);
    previous_handler_ = std::signal(SIGXFSZ, SIG_IGN);
    rlimit limit = saved_;
    limit.rlim_cur = bytes;
    setrlimit(RLIMIT_FSIZE, &limit);
  }
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &saved_);
    std::signal(SIGXFSZ, previous_handler_);
  }

 private:
  rlimit saved_{};
  void (*previous_handler_)(int) = SIG_DFL;
};

MetricsRecord stepRecord(int64_t step) {
  MetricsRecord r;
  r.step = step;
  r.train_loss = 4.0 - 0.01 * static_cast<double>(step);
  r.learning_rate = 0.003;
  return r;
}
}  // namespace

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

  // `mixerlab runs` showed a running run's step (status.json, written every few
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

  // The runs table's tokens/s is the run's own: its tokens over its wall clock (908 here), not the
  // last interval's rate (2,319 after an evaluation-free stretch), which is kept beside it.
  void throughputIsTheRunsAverage() {
    RunSummary summary;
    MetricsRecord first;
    first.step = 10;
    first.tokens = 9080;
    first.wall_s = 5;
    first.tokens_per_s = 1500;
    summary.add(first);
    QCOMPARE(summary.tokens_per_s, 9080.0 / 5.0);
    MetricsRecord second;
    second.step = 20;
    second.tokens = 18160;
    second.wall_s = 20;
    second.tokens_per_s = 2319;
    summary.add(second);
    QCOMPARE(summary.tokens_per_s, 908.0);
    QCOMPARE(summary.recent_tokens_per_s, 2319.0);
    MetricsRecord eval_only;  // an evaluation record reports no rate: the last one stays
    eval_only.step = 20;
    eval_only.tokens = 18160;
    eval_only.wall_s = 20;
    eval_only.eval_loss = 4.0;
    summary.add(eval_only);
    QCOMPARE(summary.recent_tokens_per_s, 2319.0);
    QCOMPARE(summary.tokens_per_s, 908.0);
    summary.resetMetrics();
    QCOMPARE(summary.tokens_per_s, 0.0);
    QCOMPARE(summary.recent_tokens_per_s, 0.0);
  }

  // The bundled projects (the paper's reported numbers, the demo) are found wherever MixerLab runs:
  // a checkout's projects/ in the working directory first, then an installed prefix's
  // share/mixerlab/projects, then the checkout the program was built from (a build tree copied
  // to another folder), whose demo then opens in place.
  void bundledProjectsAreFoundWhereverMixerLabRuns() {
    const fs::path before = fs::current_path();
    const fs::path elsewhere = testing::makeScratchDir("run-from-elsewhere");
    const fs::path prefix = testing::makeScratchDir("installed-prefix");
    testing::writeText(prefix / "share/mixerlab/projects/paper/reported_numbers.json", "{}");
    fs::create_directories(prefix / "bin");  // the program's own folder exists
    fs::current_path(elsewhere);
    const fs::path installed = bundledProjectsFolder(prefix / "bin" / "mixerlab");
    const fs::path built_from = bundledProjectsFolder(elsewhere / "build" / "app" / "cli" / "mixerlab");
    const fs::path demo = demoProjectFile(elsewhere / "build" / "app" / "cli" / "mixerlab");
    testing::writeText(elsewhere / "projects/paper/reported_numbers.json", "{}");
    const fs::path checkout_first = bundledProjectsFolder(prefix / "bin" / "mixerlab");
    fs::current_path(before);
    QCOMPARE(installed, (prefix / "share/mixerlab/projects").lexically_normal());
    QCOMPARE(built_from, fs::absolute(testing::sourceDir() / "projects").lexically_normal());
    QCOMPARE(demo, testing::sourceDir() / "projects" / "demo" / "project.json");
    QCOMPARE(checkout_first, (elsewhere / "projects").lexically_normal());
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

  // A metrics append that fails part way (the disk fills up in the middle of the
  // line) is undone: the log is cut back to its last complete line, says why, and takes the next
  // record cleanly once there is room.
  void failedAppendLeavesNoTornLine() {
    const fs::path file = testing::makeScratchDir("runs") / "metrics.jsonl";
    MetricsWriter writer(file);
    for (int64_t step = 1; step <= 3; ++step) writer.append(stepRecord(step));
    const std::string before = readFile(file);
    QVERIFY(stepRecord(4).toJsonLine().size() > 40);
    {
      const FileSizeLimit limit(before.size() + 40);  // room for 40 bytes of the next line only
      QVERIFY_THROWS_EXCEPTION(MixerLabError, writer.append(stepRecord(4)));
    }
    QCOMPARE(readFile(file), before);  // no torn fragment stays behind
    int skipped = 0;
    QCOMPARE(readMetrics(file, &skipped).size(), size_t{3});
    QCOMPARE(skipped, 0);
    writer.append(stepRecord(4));  // room again: the same writer goes on with a whole line
    QCOMPARE(readMetrics(file, &skipped).size(), size_t{4});
    QCOMPARE(skipped, 0);
    QVERIFY(readFile(file).back() == '\n');
  }

  // A final state reaches status.json even when no new file can be made in the
  // run folder (here a folder squats the temporary file's name, as a full disk refuses the file):
  // the record is rewritten in place. The space reserve is freed first, and an update that is not
  // final still fails loudly.
  void finalStatusIsWrittenWhenNoNewFileCanBe() {
    const fs::path dir = testing::makeScratchDir("runs");
    RunStatusRecorder recorder(dir);
    recorder.reserveSpaceForFinalStatus();
    const fs::path reserve = dir / ".final-status-reserve";
    QVERIFY(fs::exists(reserve));
    QCOMPARE(fs::file_size(reserve), uintmax_t(SpaceReserve::kRunReserveBytes));
    struct stat info {};
    QCOMPARE(::stat(reserve.c_str(), &info), 0);
    QVERIFY(info.st_blocks * 512 >= SpaceReserve::kRunReserveBytes);  // allocated, not a sparse file
    recorder.set(RunState::Running, "", 7, 700);
    fs::create_directory(RunPaths{dir}.status().string() + ".tmp-" + std::to_string(::getpid()));
    QVERIFY_THROWS_EXCEPTION(MixerLabError, recorder.set(RunState::Running, "", 8, 800));
    QCOMPARE(readRunStatus(dir)->step, int64_t{7});
    const std::string reason = "cannot append to metrics.jsonl: the disk is full (fix: free disk space)";
    recorder.set(RunState::Failed, reason, 9, 900);
    const auto status = readRunStatus(dir);
    QVERIFY(status.has_value());
    QCOMPARE(status->state, RunState::Failed);
    QCOMPARE(status->reason, reason);
    QCOMPARE(status->step, int64_t{9});
    QCOMPARE(status->pid, int64_t{::getpid()});
    QVERIFY(!fs::exists(reserve));  // released for the run's last words
  }

  // The in-place rewrite stays within the bytes the file's blocks hold: a reason too long for them is
  // shortened (marked "..."), and the record still parses.
  void inPlaceStatusFitsTheFileItReplaces() {
    const fs::path dir = testing::makeScratchDir("runs");
    RunStatus running;
    running.state = RunState::Running;
    writeRunStatus(dir, running);
    struct stat info {};
    QCOMPARE(::stat(RunPaths{dir}.status().c_str(), &info), 0);
    const auto room = std::max<int64_t>(info.st_size, static_cast<int64_t>(info.st_blocks) * 512);
    RunStatus failed = running;
    failed.state = RunState::Failed;
    failed.reason = "the disk is full: " + std::string(static_cast<size_t>(room) * 2, 'x');
    overwriteRunStatusInPlace(dir, failed);
    QVERIFY(static_cast<int64_t>(fs::file_size(RunPaths{dir}.status())) <= room);
    const auto status = readRunStatus(dir);
    QVERIFY(status.has_value());
    QCOMPARE(status->state, RunState::Failed);
    QVERIFY(status->reason.rfind("the disk is full: xxx", 0) == 0);
    QVERIFY(status->reason.size() >= 3 && status->reason.substr(status->reason.size() - 3) == "...");
  }

  // With no byte left to write (a full disk: here RLIMIT_FSIZE 0), an in-place status that could
  // not be written leaves no empty status.json behind (a run folder with one reads as pending), and
  // a run log that cannot be written warns once, readably, instead of spdlog's "LOG ERROR" per line
  // (the lines still reach the callback).
  void nothingWritableLeavesNoEmptyStatusOrRawLogErrors() {
    const fs::path dir = testing::makeScratchDir("runs");
    RunStatus failed;
    failed.state = RunState::Failed;
    failed.reason = "tokenizer training: the disk is full";
    std::vector<std::string> forwarded;
    int pipe_fds[2];
    QCOMPARE(::pipe(pipe_fds), 0);  // stderr into a pipe: the file-size limit does not apply to it
    const int saved_stderr = ::dup(STDERR_FILENO);
    {
      const FileSizeLimit limit(0);
      QVERIFY_THROWS_EXCEPTION(MixerLabError, overwriteRunStatusInPlace(dir, failed));
      ::dup2(pipe_fds[1], STDERR_FILENO);
      {
        RunLog log(RunPaths{dir}.log(), [&](const std::string& line) { forwarded.push_back(line); });
        log.info("first line");
        log.error("second line");
      }
      std::fflush(stderr);
      ::dup2(saved_stderr, STDERR_FILENO);
    }
    ::close(saved_stderr);
    ::close(pipe_fds[1]);
    std::string printed;
    char buffer[4096];
    for (ssize_t n; (n = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0;)
      printed.append(buffer, static_cast<size_t>(n));
    ::close(pipe_fds[0]);
    QVERIFY(!fs::exists(RunPaths{dir}.status()));
    QCOMPARE(forwarded, (std::vector<std::string>{"first line", "error: second line"}));
    QVERIFY2(printed.find("LOG ERROR") == std::string::npos, printed.c_str());
    const std::string warning = "warning: cannot write the run log " + RunPaths{dir}.log().string();
    QVERIFY2(printed.find(warning) != std::string::npos && printed.find(warning) == printed.rfind(warning),
             printed.c_str());
    // A status that was there stays when its rewrite fails: never deleted, never emptied.
    writeRunStatus(dir, failed);
    {
      const FileSizeLimit limit(0);
      RunStatus other = failed;
      other.reason = "another reason";
      QVERIFY_THROWS_EXCEPTION(MixerLabError, overwriteRunStatusInPlace(dir, other));
    }
    QCOMPARE(readRunStatus(dir)->reason, failed.reason);
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
