// Fork tests: a run forked from another run's step-8 checkpoint with a different learning rate
// continues from step 8 (weights, optimizer, trainer state), carries the parent's metrics 0..8
// unchanged so it draws as one line from step 0, records "forked_from", and a fork whose model
// differs from the checkpoint's is rejected before anything is written.
#include <QtTest/QtTest>

#include "core/config/project_config.h"
#include "core/runs/metrics_log.h"
#include "core/train/checkpoint.h"
#include "core/train/trainer.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "tests/training_fixture.h"

using namespace mixerlab;
namespace fs = std::filesystem;

namespace {
TrainOutcome train(const ProjectConfig& project, const RunConfig& run, const fs::path& dir, const fs::path& fork = {}) {
  TrainRequest r;
  r.project = &project;
  r.run = run;
  r.run_dir = dir;
  r.fork_from = fork;
  return trainRun(r);
}
}  // namespace

class TestFork : public QObject {
  Q_OBJECT
  fs::path dir_;
  ProjectConfig project_;

 private Q_SLOTS:
  void initTestCase() {
    dir_ = testing::makeScratchDir("fork");
    project_ = loadProject(testing::writeTinyProject(dir_));
  }

  void forkContinuesFromCheckpoint() {
    RunConfig parent_run = project_.run("mixer");
    parent_run.train.max_steps = 8;
    const fs::path parent = dir_ / "runs" / "parent";
    QCOMPARE(train(project_, parent_run, parent).state, RunState::Finished);
    const fs::path checkpoint = resolveCheckpointDir(parent / "checkpoints" / "step-00000008");
    QCOMPARE(readTrainerState(checkpoint).step, int64_t{8});

    RunConfig fork_run = project_.run("mixer");
    fork_run.train.max_steps = 12;
    fork_run.train.learning_rate = 0.001;
    const fs::path fork = dir_ / "runs" / "fork";
    const TrainOutcome outcome = train(project_, fork_run, fork, checkpoint);
    QCOMPARE(outcome.state, RunState::Finished);
    QCOMPARE(outcome.step, int64_t{12});

    const auto parent_metrics = readMetrics(parent / "metrics.jsonl");
    const auto fork_metrics = readMetrics(fork / "metrics.jsonl");
    QCOMPARE(parent_metrics.back().step, int64_t{8});
    QCOMPARE(fork_metrics.size(), size_t{13});  // log_every 1: steps 0..12
    for (size_t i = 0; i < fork_metrics.size(); ++i) QCOMPARE(fork_metrics[i].step, int64_t(i));
    for (size_t i = 0; i < parent_metrics.size(); ++i) {
      QCOMPARE(fork_metrics[i].toJsonLine(), parent_metrics[i].toJsonLine());
    }
    // Steps 9..12 ran with the fork's learning rate and continued the token count.
    QVERIFY(fork_metrics[12].learning_rate <= 0.001 + 1e-12);
    QVERIFY(fork_metrics[9].tokens > fork_metrics[8].tokens);
    QVERIFY(fork_metrics[9].wall_s >= fork_metrics[8].wall_s);
    QVERIFY(fork_metrics[12].eval_loss.has_value());

    const auto run_json = nlohmann::json::parse(readFile(fork / "run.json"));
    QVERIFY(run_json.contains("forked_from"));
    QCOMPARE(run_json["forked_from"]["step"].get<int64_t>(), int64_t{8});
    QCOMPARE(fs::path(run_json["forked_from"]["checkpoint"].get<std::string>()).filename().string(),
             std::string("step-00000008"));
    QCOMPARE(readTrainerState(*latestCheckpoint(fork / "checkpoints")).step, int64_t{12});
  }

  void forkWithAnotherModelIsRejected() {
    const fs::path checkpoint = dir_ / "runs" / "parent" / "checkpoints" / "step-00000008";
    QVERIFY(fs::exists(checkpoint));
    RunConfig other = project_.run("llama");
    const fs::path target = dir_ / "runs" / "bad-fork";
    bool threw = false;
    try {
      train(project_, other, target, checkpoint);
    } catch (const MixerLabError& e) {
      threw = true;
      const std::string message = e.what();
      QVERIFY2(message.find("masked_mixer") != std::string::npos, message.c_str());
      QVERIFY2(message.find("llama") != std::string::npos, message.c_str());
    }
    QVERIFY(threw);
    QVERIFY(!fs::exists(target / "run.json"));
  }

  // A checkpoint written before a model key existed (here: no "mtp_tokens" in its config.json)
  // still forks into a run that leaves the key at its default: configs are compared parsed.
  void forkFromAnOlderCheckpointConfig() {
    const fs::path source = dir_ / "runs" / "parent" / "checkpoints" / "step-00000008";
    const fs::path old_checkpoint = dir_ / "old-checkpoint" / "checkpoints" / "step-00000008";
    fs::create_directories(old_checkpoint.parent_path());
    fs::copy(source, old_checkpoint, fs::copy_options::recursive);
    auto config = readCheckpointConfig(old_checkpoint);
    config["model"].erase("mtp_tokens");
    writeFileAtomic(checkpointConfigFile(old_checkpoint), config.dump(2));
    writeCheckpointManifest(old_checkpoint);  // the edited config is the checkpoint's own
    RunConfig run = project_.run("mixer");
    run.train.max_steps = 9;
    QCOMPARE(train(project_, run, dir_ / "runs" / "from-old", old_checkpoint).state, RunState::Finished);
  }
};

QTEST_MAIN(TestFork)
#include "test_fork.moc"
