// Trainer tests on the real demo corpus: loss falls, a stopped-and-resumed run reproduces the
// uninterrupted run's metrics exactly, NaN loss fails the run and keeps the last checkpoint.
#include <torch/torch.h>
#include <QtTest/QtTest>

#include "core/config/project_config.h"
#include "core/models/safetensors.h"
#include "core/runs/metrics_log.h"
#include "core/runs/run_status.h"
#include "core/train/checkpoint.h"
#include "core/train/trainer.h"
#include "tests/training_fixture.h"

using namespace mixerlab;
namespace fs = std::filesystem;

namespace {
TrainOutcome train(const ProjectConfig& project, const std::string& run, const fs::path& dir, bool resume,
                   int64_t stop_after_step = 0) {
  return testing::trainTinyRun(project, project.run(run), dir, resume, stop_after_step);
}
}  // namespace

class TestTraining : public QObject {
  Q_OBJECT
  fs::path dir_;
  ProjectConfig project_;

 private Q_SLOTS:
  void initTestCase() {
    dir_ = testing::makeScratchDir("training");
    project_ = loadProject(testing::writeTinyProject(dir_));
  }

  void resumeEqualsUninterrupted_data() {
    QTest::addColumn<QString>("run");
    QTest::newRow("mixer") << "mixer";
    QTest::newRow("llama") << "llama";
  }
  void resumeEqualsUninterrupted() {
    QFETCH(QString, run);
    const fs::path whole = dir_ / "runs" / (run.toStdString() + "-whole");
    const fs::path split = dir_ / "runs" / (run.toStdString() + "-split");
    QCOMPARE(train(project_, run.toStdString(), whole, false).state, RunState::Finished);
    // Stop after step 6 (between checkpoints 4 and 8: the stop writes its own checkpoint).
    QCOMPARE(train(project_, run.toStdString(), split, false, 6).state, RunState::Stopped);
    QCOMPARE(readRunStatus(split)->state, RunState::Stopped);
    QCOMPARE(readTrainerState(*latestCheckpoint(split / "checkpoints")).step, int64_t{6});
    QCOMPARE(train(project_, run.toStdString(), split, true).state, RunState::Finished);

    const auto a = readMetrics(whole / "metrics.jsonl");
    const auto b = readMetrics(split / "metrics.jsonl");
    QCOMPARE(a.size(), b.size());
    QCOMPARE(a.size(), size_t{13});  // step 0 (eval) + steps 1..12
    for (size_t i = 0; i < a.size(); ++i) {
      QCOMPARE(a[i].step, static_cast<int64_t>(i));
      QCOMPARE(b[i].step, a[i].step);
      QCOMPARE(b[i].tokens, a[i].tokens);
      QCOMPARE(b[i].learning_rate, a[i].learning_rate);
      QCOMPARE(b[i].train_loss.has_value(), a[i].train_loss.has_value());
      if (a[i].train_loss)
        QVERIFY2(std::abs(*a[i].train_loss - *b[i].train_loss) < 1e-6, qPrintable(QString::number(i)));
      if (a[i].eval_loss) QVERIFY(std::abs(*a[i].eval_loss - *b[i].eval_loss) < 1e-6);
    }
    // Same final weights.
    auto wa = loadSafetensors(*latestCheckpoint(whole / "checkpoints") / "model.safetensors");
    auto wb = loadSafetensors(*latestCheckpoint(split / "checkpoints") / "model.safetensors");
    for (const auto& [name, t] : wa.tensors)
      QVERIFY2(torch::allclose(t, wb.tensors.at(name), 1e-5, 1e-6), name.c_str());
    // The loss went down from the random-init value (ln 512 ~ 6.24).
    QVERIFY(*a.front().eval_loss > 5.5);
    QVERIFY2(*a.back().eval_loss < *a.front().eval_loss - 0.2,
             qPrintable(QString("eval %1 -> %2").arg(*a.front().eval_loss).arg(*a.back().eval_loss)));
  }

  void existingRunNeedsResume() {
    const fs::path dir = dir_ / "runs" / "mixer-whole";
    QVERIFY_THROWS_EXCEPTION(std::exception, train(project_, "mixer", dir, false));
  }

  // A learning rate of 1e30 overflows the weights at the first resumed step, so the next loss is
  // not finite: the run fails, says that the step-4 checkpoint is kept and how to fix it, and
  // writes no checkpoint of the diverged weights.
  void nanLossFailsAndKeepsLastCheckpoint() {
    const fs::path dir = dir_ / "runs" / "nan";
    ProjectConfig project = project_;
    QCOMPARE(train(project, "mixer", dir, false, 4).state, RunState::Stopped);
    const fs::path ckpt = *latestCheckpoint(dir / "checkpoints");
    for (RunConfig& run : project.runs) {
      run.train.learning_rate = 1e30;
      run.train.warmup_steps = 0;
    }
    const auto outcome = train(project, "mixer", dir, true);
    QCOMPARE(outcome.state, RunState::Failed);
    const QString reason = QString::fromStdString(outcome.reason);
    QVERIFY2(reason.contains("NaN") || reason.contains("infinite"), qPrintable(reason));
    QVERIFY2(reason.contains("the last checkpoint (step 4"), qPrintable(reason));
    const auto status = readRunStatus(dir);
    QCOMPARE(status->state, RunState::Failed);
    QVERIFY(QString::fromStdString(status->reason).contains("learning_rate"));
    QCOMPARE(*latestCheckpoint(dir / "checkpoints"), ckpt);  // nothing newer was written
    QCOMPARE(readMetrics(dir / "metrics.jsonl").back().step <= 6, true);
  }
};

QTEST_APPLESS_MAIN(TestTraining)
#include "test_training.moc"
