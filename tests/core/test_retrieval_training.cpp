// The retrieval model (issue 11, spec 9a): trained with Algorithm-1 samples on a small set of pairs
// whose query is a fixed random linear image of its target plus noise, it beats chance clearly on
// held-out pairs; the held-out evaluation is deterministic; an untrained model sits near chance.
#include <torch/torch.h>
#include <QtTest/QtTest>

#include "core/analysis/retrieval/infonce_finetune.h"
#include "core/analysis/retrieval/retrieval_dataset.h"
#include "core/analysis/retrieval/retrieval_training.h"
#include "core/config/project_config.h"
#include "core/train/checkpoint.h"
#include "core/train/trainer.h"
#include "tests/training_fixture.h"

using namespace mixerlab;
namespace fs = std::filesystem;

namespace {
struct Pairs {
  at::Tensor queries, targets;
};
// Targets N(0,1) in D dims; query = target . M + 0.3 noise, M a fixed random rotation-like map.
Pairs makePairs(int64_t n, int64_t width, uint64_t seed, const at::Tensor& map) {
  torch::manual_seed(seed);
  auto targets = torch::randn({n, width});
  auto queries = torch::matmul(targets, map) + 0.3 * torch::randn({n, width});
  return {queries, targets};
}
}  // namespace

class TestRetrievalTraining : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() { at::set_num_threads(2); }

  void trainedModelBeatsChanceClearly() {
    torch::manual_seed(11);
    const auto map = std::get<0>(torch::linalg_qr(torch::randn({16, 16}))).contiguous();
    const Pairs train = makePairs(512, 16, 1, map), test = makePairs(128, 16, 2, map);
    RetrievalTrainSettings s;
    s.context = 8;  // chance top-1 = 1/7
    s.layers = 2;
    s.batch_size = 32;
    s.learning_rate = 3e-3;
    s.warmup_steps = 10;
    s.epochs = 25;
    int epochs_seen = 0;
    RetrievalMixer model(nullptr);
    const auto r = trainRetrievalModel(
        train.queries, train.targets, test.queries, test.targets, s, [&](const RetrievalEpoch&) { ++epochs_seen; },
        nullptr, &model);
    QCOMPARE(epochs_seen, 25);
    QCOMPARE(r.chance_top1, 1.0 / 7.0);
    const auto& last = r.epochs.back();
    qInfo("retrieval c=8: held-out top-1 %.3f (chance %.3f), top-5 %.3f, eval CE %.3f (ln 7 = %.3f)", last.eval_top1,
          r.chance_top1, last.eval_top5, last.eval_loss, std::log(7.0));
    QVERIFY2(last.eval_top1 > 3 * r.chance_top1, qPrintable(QString::number(last.eval_top1)));
    QVERIFY(last.eval_loss < std::log(7.0) - 0.5);
    // The evaluation draws the same candidate sets every time.
    const auto again = evaluateRetrievalModel(model, test.queries, test.targets, s.context, s.seed + 1);
    QCOMPARE(again.eval_top1, last.eval_top1);
  }

  void untrainedModelSitsNearChance() {
    torch::manual_seed(11);
    const auto map = std::get<0>(torch::linalg_qr(torch::randn({16, 16}))).contiguous();
    const Pairs test = makePairs(512, 16, 2, map);
    torch::manual_seed(3);
    RetrievalMixer model(8, 16, 2);
    const auto e = evaluateRetrievalModel(model, test.queries, test.targets, 8, 5);
    QVERIFY2(e.eval_top1 < 0.3, qPrintable(QString::number(e.eval_top1)));
  }

  // InfoNCE fine-tuning (spec 9b) of a tiny trained mixer on synthetic pairs: held-out cosine top-1
  // rises from its starting point, and the result is a checkpoint the analyses load like any other.
  void infoNceFineTuningRaisesHeldOutCosineTop1() {
    const fs::path dir = testing::makeScratchDir("infonce");
    const ProjectConfig project = loadProject(testing::writeTinyProject(dir));
    TrainRequest r;
    r.project = &project;
    r.run = project.run("mixer");
    r.run_dir = dir / "runs" / "mixer";
    QCOMPARE(trainRun(r).state, RunState::Finished);
    auto pairs = syntheticStoryPairs(240, 4);
    const std::vector<StoryPair> held_out(pairs.end() - 40, pairs.end());
    pairs.resize(200);
    InfoNceSettings s;
    s.steps = 400;
    s.eval_every = 400;
    s.learning_rate = 2e-3;
    s.warmup_steps = 5;
    std::vector<double> top1, losses;
    const fs::path checkpoint = infoNceFinetune(ModelSource::checkpoint(r.run_dir), pairs, held_out, s, dir / "infonce",
                                                [&](const InfoNceProgress& p) {
                                                  if (p.eval_top1) top1.push_back(*p.eval_top1);
                                                  if (p.step > 0) losses.push_back(p.loss);
                                                });
    QCOMPARE(top1.size(), size_t{2});  // the start and the end
    qInfo("InfoNCE: held-out cosine top-1 (8 candidates) %.3f -> %.3f; loss of the first / last 10 steps %.3f / %.3f",
          top1[0], top1[1], losses.front(), losses.back());
    // The matching text must come to win: the loss falls well below ln 8 = 2.08 (measured 1.08; a
    // model trained toward the wrong slot stays at 2.14, though its held-out cosine still gains a
    // little, 0.10 -> 0.23, from spreading the embeddings).
    QVERIFY2(losses.back() < 1.6, qPrintable(QString::number(losses.back())));
    QVERIFY2(top1[1] > top1[0] + 0.3, qPrintable(QString("%1 -> %2").arg(top1[0]).arg(top1[1])));
    QCOMPARE(resolveCheckpointDir(dir / "infonce"), checkpoint);
    const auto built = buildRetrievalDataset(ModelSource::checkpoint(checkpoint), held_out, 0.5, {}, dir / "data");
    QCOMPARE(built.query_test.size(0), int64_t{20});
  }
};

QTEST_GUILESS_MAIN(TestRetrievalTraining)
#include "test_retrieval_training.moc"
