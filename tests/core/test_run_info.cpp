// Run directory owner tests: run.json as RunInfo (round trip, old files without the newer keys,
// malformed files) and RunSummary (best eval is the minimum, a torn last line is ignored, and the
// one-shot summarizeRun agrees with a live reader feeding records as they arrive).
#include <QtTest/QtTest>

#include <fstream>

#include "core/models/model_registry.h"
#include "core/runs/metrics_log.h"
#include "core/runs/retrieval_run_record.h"
#include "core/runs/run_directory.h"
#include "core/runs/run_info.h"
#include "core/runs/run_status.h"
#include "core/runs/run_summary.h"
#include "core/util/error.h"
#include "tests/test_support.h"

using namespace mixerlab;
namespace fs = std::filesystem;

namespace {

RunInfo demoRunInfo() {
  const ProjectConfig project = loadProject(testing::sourceDir() / "projects/demo/project.json");
  RunInfo info = runInfoFor(project, project.run("mixer"));
  info.environment = {{"device", "cpu (2 threads)"}, {"host", "test"}};
  info.threads = 2;
  info.parameters = 1234567;
  info.training_flops_per_token = 8.5e6;
  return info;
}

MetricsRecord record(int64_t step, std::optional<double> train, std::optional<double> eval, double tokens_per_s) {
  MetricsRecord r;
  r.step = step;
  r.tokens = step * 512;
  r.wall_s = 0.5 * static_cast<double>(step);
  r.train_loss = train;
  r.eval_loss = eval;
  r.tokens_per_s = tokens_per_s;
  return r;
}

}  // namespace

class TestRunInfo : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void runInfoRoundTrips() {
    const fs::path dir = testing::makeScratchDir("run_info");
    RunInfo written = demoRunInfo();
    written.forked_from = ForkOrigin{"/runs/parent/checkpoints/step-00000008", 8};
    writeRunInfo(dir, written);
    QVERIFY(RunPaths{dir}.hasRunInfo());
    const RunInfo read = readRunInfo(dir);
    QCOMPARE(read.run.toJson(), written.run.toJson());
    QCOMPARE(read.project, written.project);
    QVERIFY(!read.project.contains("runs"));
    QCOMPARE(read.project_file, written.project_file);
    QCOMPARE(read.tokenizer, std::string("tokenizer.model"));
    QCOMPARE(read.environment, written.environment);
    QCOMPARE(read.device(), std::string("cpu (2 threads)"));
    QCOMPARE(read.seed, written.seed);
    QCOMPARE(read.threads, int64_t{2});
    QCOMPARE(read.parameters, int64_t{1234567});
    QCOMPARE(read.training_flops_per_token, 8.5e6);
    QVERIFY(read.forked_from);
    QCOMPARE(read.forked_from->checkpoint, written.forked_from->checkpoint);
    QCOMPARE(read.forked_from->step, int64_t{8});
    QCOMPARE(read.toJson(), written.toJson());
    // The keys existing readers use stay where they were.
    const auto j = nlohmann::json::parse(std::ifstream(RunPaths{dir}.runJson()));
    for (const char* key : {"run", "project", "model", "project_file", "tokenizer", "environment", "seed", "threads",
                            "forked_from", "parameters", "training_flops_per_token"}) {
      QVERIFY2(j.contains(key), key);
    }
    QCOMPARE(j.at("model"), written.run.model.toJson());
  }

  void oldRunJsonWithoutNewKeysStillReads() {
    const fs::path dir = testing::makeScratchDir("run_info");
    nlohmann::json old = demoRunInfo().toJson();
    old.erase("parameters");
    old.erase("training_flops_per_token");
    old.erase("forked_from");
    std::ofstream(RunPaths{dir}.runJson()) << old.dump(2);
    const RunInfo read = readRunInfo(dir);
    QCOMPARE(read.run.name, std::string("mixer"));
    QCOMPARE(read.device(), std::string("cpu (2 threads)"));
    QVERIFY(!read.forked_from);
    // Figures an old run did not record come from its model config.
    const ModelCost cost = estimateCost(read.run.model, read.run.train.batch_size);
    QCOMPARE(read.training_flops_per_token, cost.training_flops_per_token);
    QCOMPARE(read.parameters, cost.parameters);
  }

  void missingOrMalformedRunJson() {
    const fs::path dir = testing::makeScratchDir("run_info");
    QVERIFY(!tryReadRunInfo(dir));
    QVERIFY_THROWS_EXCEPTION(MixerLabError, readRunInfo(dir));
    std::ofstream(RunPaths{dir}.runJson()) << "{\"run\": {\"name\": \"x\"}}";  // no model
    QVERIFY(!tryReadRunInfo(dir));
    try {
      readRunInfo(dir);
      QFAIL("expected MixerLabError");
    } catch (const MixerLabError& e) {
      QVERIFY(QString::fromStdString(e.what()).contains("run.json"));
    }
  }

  void summaryFromRunDirectory() {
    const fs::path dir = testing::makeScratchDir("run_summary");
    writeRunInfo(dir, demoRunInfo());
    {
      MetricsWriter w(RunPaths{dir}.metrics());
      w.append(record(0, std::nullopt, 5.0, 0));
      w.append(record(2, 4.5, std::nullopt, 900));
      w.append(record(4, 4.0, 3.0, 1000));
      w.append(record(6, 3.5, 3.25, 0));
    }
    std::ofstream(RunPaths{dir}.metrics(), std::ios::app) << "{\"step\": 8, \"eval_loss\": 1.0";  // torn
    RunStatus status;
    status.state = RunState::Finished;
    status.step = 6;
    status.tokens = 6 * 512;
    writeRunStatus(dir, status);

    const RunSummary s = summarizeRun(dir);
    QCOMPARE(s.state, RunState::Finished);
    QCOMPARE(s.step, int64_t{6});
    QCOMPARE(s.tokens, int64_t{6 * 512});
    QCOMPARE(s.wall_s, 3.0);
    QCOMPARE(*s.best_eval_loss, 3.0);  // the minimum, not the last; the torn 1.0 does not count
    QCOMPARE(*s.last_eval_loss, 3.25);
    QCOMPARE(*s.last_train_loss, 3.5);
    QCOMPARE(s.tokens_per_s, 6 * 512 / 3.0);  // the run's average: its tokens over its wall clock
    QCOMPARE(s.recent_tokens_per_s, 1000.0);  // the latest non-zero interval throughput
    QCOMPARE(s.arch, demoRunInfo().run.model.arch);
    QCOMPARE(s.device, std::string("cpu (2 threads)"));

    const auto dirs = listRunDirectories(dir.parent_path());
    QVERIFY(std::find(dirs.begin(), dirs.end(), dir) != dirs.end());
    QVERIFY(listRunDirectories(dir / "no-such-folder").empty());
  }

  // Under runs/, a folder is a run when it holds any one of a run's records (a checkpoints/ folder
  // included); a folder with none (a user's notes, what a runs/ link to the wrong place shows) is
  // not listed.
  void onlyFoldersWithARunRecordAreRuns() {
    const fs::path runs = testing::makeScratchDir("runs-listing");
    const RunPaths probe{runs / "probe"};
    const std::vector<fs::path> records = {probe.runJson(), probe.status(), probe.metrics(), probe.log(),
                                           retrievalRunFile(probe.root)};
    std::vector<fs::path> expected;
    for (const fs::path& record : records) {
      const fs::path run = runs / ("run-" + record.filename().string());
      fs::create_directories(run);
      testing::writeText(run / record.filename(), "{}\n");
      expected.push_back(run);
    }
    fs::create_directories(runs / "notes");
    testing::writeText(runs / "notes" / "ideas.txt", "try a wider mixer\n");
    fs::create_directories(runs / "empty");
    fs::create_directories(runs / "checkpoints-only" / "checkpoints");  // copied checkpoints: a run
    expected.push_back(runs / "checkpoints-only");
    fs::create_directories(runs / "checkpoints-file");
    testing::writeText(runs / "checkpoints-file" / "checkpoints", "not a folder\n");
    std::sort(expected.begin(), expected.end());
    QCOMPARE(listRunDirectories(runs), expected);
  }

  void summarizeRunAgreesWithLiveAccumulator() {
    const fs::path dir = testing::makeScratchDir("run_summary");
    writeRunInfo(dir, demoRunInfo());
    RunSummary live;
    live.applyRunInfo(*tryReadRunInfo(dir));
    MetricsTail tail(RunPaths{dir}.metrics());
    const double eval_losses[] = {6.0, 4.0, 4.5, 3.9, 4.2};
    {
      MetricsWriter w(RunPaths{dir}.metrics());
      for (int64_t step = 0; step <= 12; ++step) {
        const std::optional<double> eval = step % 3 == 0 ? std::optional<double>(eval_losses[step / 3]) : std::nullopt;
        w.append(record(step, step > 0 ? std::optional<double>(5.0 - 0.1 * step) : std::nullopt, eval, 100.0 * step));
        if (step % 4 == 0) {
          for (const auto& r : tail.poll()) live.add(r);
        }
      }
    }
    for (const auto& r : tail.poll()) live.add(r);
    RunStatus status;
    status.state = RunState::Stopped;
    status.reason = "stop requested";
    status.step = 12;
    writeRunStatus(dir, status);
    live.applyStatus(*readRunStatus(dir));

    const RunSummary once = summarizeRun(dir);
    QCOMPARE(live.state, once.state);
    QCOMPARE(live.reason, once.reason);
    QCOMPARE(live.step, once.step);
    QCOMPARE(live.tokens, once.tokens);
    QCOMPARE(live.wall_s, once.wall_s);
    QCOMPARE(live.tokens_per_s, once.tokens_per_s);
    QCOMPARE(live.best_eval_loss, once.best_eval_loss);
    QCOMPARE(*once.best_eval_loss, 3.9);
    QCOMPARE(live.last_train_loss, once.last_train_loss);
    QCOMPARE(live.last_eval_loss, once.last_eval_loss);
    QCOMPARE(live.arch, once.arch);
    QCOMPARE(live.device, once.device);
  }
};

QTEST_APPLESS_MAIN(TestRunInfo)
#include "test_run_info.moc"
