// A run's tokenizer is the one its checkpoints hold (docs/reliability.md): a resume after the
// corpus changed (so the project would train another tokenizer) is refused with the checkpoint
// named and the ways out, loses nothing, and resumes once the run's tokenizer is kept through
// tokenizer.file; `eval` encodes with the checkpoint's tokenizer whatever the project's corpus is
// now; the project's cache/ deleted while a run trains leaves every later checkpoint holding the
// tokenizer the run started with.
#include <torch/torch.h>
#include <QtTest/QtTest>

#include "core/analysis/checkpoint_eval.h"
#include "core/config/project_config.h"
#include "core/runs/metrics_log.h"
#include "core/runs/run_directory.h"
#include "core/train/checkpoint.h"
#include "core/train/trainer.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "tests/training_fixture.h"

using namespace mixerlab;
namespace fs = std::filesystem;

class TestCheckpointTokenizer : public QObject {
  Q_OBJECT
  fs::path dir_;

  // The tiny project with its own copies of the demo corpus, so a test may edit them.
  static fs::path projectWithOwnCorpus(const fs::path& dir, const std::string& extra_train = "") {
    const fs::path file = testing::writeTinyProject(dir, extra_train);
    auto project = nlohmann::json::parse(readFile(file));
    const fs::path data = testing::sourceDir() / "projects/demo/data";
    fs::copy_file(data / "stories-b.txt", dir / "train.txt", fs::copy_options::overwrite_existing);
    fs::copy_file(data / "stories-a.txt", dir / "eval.txt", fs::copy_options::overwrite_existing);
    project["corpus"]["train"] = "train.txt";
    project["corpus"]["eval"] = "eval.txt";
    testing::writeText(file, project.dump(2));
    return file;
  }

 private Q_SLOTS:
  void initTestCase() {
    at::set_num_threads(2);
    dir_ = testing::makeScratchDir("checkpoint-tokenizer");
  }

  void changedCorpusRefusesResumeAndEvalKeepsTheRunsTokenizer() {
    const fs::path project_dir = dir_ / "changed";
    const fs::path file = projectWithOwnCorpus(project_dir);
    const fs::path run_dir = project_dir / "runs" / "mixer";
    {
      const ProjectConfig before = loadProject(file);
      QCOMPARE(testing::trainTinyRun(before, before.run("mixer"), run_dir, false, 4).state, RunState::Stopped);
    }
    const fs::path step4 = *latestCheckpoint(RunPaths{run_dir}.checkpoints());
    const std::string run_tokenizer = readFile(checkpointTokenizerFile(step4));
    const double eval_before = evaluateCheckpoint(step4, 2).eval_loss;
    const std::string metrics_before = readFile(RunPaths{run_dir}.metrics());

    // Another training text: the project's next tokenizer is another one.
    fs::copy_file(project_dir / "eval.txt", project_dir / "train.txt", fs::copy_options::overwrite_existing);
    const ProjectConfig after = loadProject(file);
    std::string error;
    try {
      const TrainOutcome outcome = testing::trainTinyRun(after, after.run("mixer"), run_dir, true);
      error = outcome.reason;
    } catch (const std::exception& e) {
      error = e.what();
    }
    QVERIFY2(error.find("cannot resume run \"mixer\" from " + step4.string()) != std::string::npos &&
                 error.find("is not the one the checkpoint was trained with") != std::string::npos &&
                 error.find("set tokenizer.file") != std::string::npos,
             error.c_str());
    // Nothing lost: the checkpoint and the metrics are as they were.
    QCOMPARE(*latestCheckpoint(RunPaths{run_dir}.checkpoints()), step4);
    QCOMPARE(readFile(checkpointTokenizerFile(step4)), run_tokenizer);
    QCOMPARE(readFile(RunPaths{run_dir}.metrics()), metrics_before);

    // eval reads the checkpoint's tokenizer: the same weights on the same eval file, the same loss.
    QCOMPARE(evaluateCheckpoint(step4, 2).eval_loss, eval_before);

    // The documented way on: keep the run's tokenizer through tokenizer.file.
    fs::copy_file(checkpointTokenizerFile(step4), project_dir / "run-tokenizer.model");
    auto document = nlohmann::json::parse(readFile(file));
    document["tokenizer"]["file"] = "run-tokenizer.model";
    testing::writeText(file, document.dump(2));
    const ProjectConfig kept = loadProject(file);
    const TrainOutcome resumed = testing::trainTinyRun(kept, kept.run("mixer"), run_dir, true);
    QVERIFY2(resumed.state == RunState::Finished, resumed.reason.c_str());
    QCOMPARE(resumed.step, kept.run("mixer").train.max_steps);
    QCOMPARE(readFile(checkpointTokenizerFile(*latestCheckpoint(RunPaths{run_dir}.checkpoints()))), run_tokenizer);
  }

  // The project's cache/ deleted while a run trains (error messages advise deleting it): every
  // later checkpoint still holds the tokenizer the run started with, byte for byte, from memory.
  void deletedCacheDoesNotFailTheRun() {
    const fs::path project_dir = dir_ / "cache-deleted";
    const ProjectConfig project = loadProject(testing::writeTinyProject(project_dir, R"(, "keep_checkpoints": 3)"));
    std::string tokenizer_at_start;
    TrainRequest request;
    request.project = &project;
    request.run = project.run("mixer");
    request.run_dir = project_dir / "runs" / "mixer";
    request.on_progress = [&](const TrainProgress& p) {
      if (p.step != 2 || !tokenizer_at_start.empty()) return;
      for (const auto& entry : fs::recursive_directory_iterator(project.cacheDirectory())) {
        const std::string name = entry.path().filename().string();
        if (name.rfind("tokenizer-", 0) == 0 && entry.path().extension() == ".model")
          tokenizer_at_start = readFile(entry.path());
      }
      fs::remove_all(project.cacheDirectory());
    };
    const TrainOutcome outcome = trainRun(request);
    QVERIFY2(outcome.state == RunState::Finished, outcome.reason.c_str());
    QVERIFY(!tokenizer_at_start.empty());
    QVERIFY(!fs::exists(project.cacheDirectory()));
    const auto checkpoints = listCheckpoints(RunPaths{request.run_dir}.checkpoints());
    QCOMPARE(checkpoints.size(), size_t{3});  // steps 4, 8 and 12, all written after the deletion
    for (const fs::path& checkpoint : checkpoints)
      QVERIFY2(readFile(checkpointTokenizerFile(checkpoint)) == tokenizer_at_start, checkpoint.c_str());
  }
};

QTEST_APPLESS_MAIN(TestCheckpointTokenizer)
#include "test_checkpoint_tokenizer.moc"
