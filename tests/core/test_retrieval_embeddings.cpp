// Retrieval embeddings and scoring (issue 11): top-k accuracy counts a hand-made case exactly (ties
// count against the truth); cosine retrieval finds a story embedded twice; embeddings are read at
// the family's position from the run's padding side; the disk cache is reused for the same weights
// and texts and invalidated when the checkpoint's weights change.
#include <torch/torch.h>
#include <QtTest/QtTest>

#include "core/analysis/analysis_model.h"
#include "core/analysis/retrieval/cosine_retrieval.h"
#include "core/analysis/retrieval/retrieval_dataset.h"
#include "core/analysis/retrieval/retrieval_search.h"
#include "core/analysis/retrieval/text_embeddings.h"
#include "core/config/project_config.h"
#include "core/data/story_pairs.h"
#include "core/train/checkpoint.h"
#include "core/train/trainer.h"
#include "tests/training_fixture.h"

using namespace mixerlab;
namespace fs = std::filesystem;

class TestRetrievalEmbeddings : public QObject {
  Q_OBJECT
  fs::path dir_, run_dir_;

 private Q_SLOTS:
  void initTestCase() {
    at::set_num_threads(2);
    dir_ = testing::makeScratchDir("retrieval-embeddings");
    const ProjectConfig project = loadProject(testing::writeTinyProject(dir_));
    TrainRequest r;
    r.project = &project;
    r.run = project.run("mixer");
    r.run_dir = run_dir_ = dir_ / "runs" / "mixer";
    QCOMPARE(trainRun(r).state, RunState::Finished);
  }

  void topKAccuracyCountsAHandMadeCase() {
    const auto scores = torch::tensor({0.1, 0.9, 0.3, 0.5, 0.2, 0.1, 0.3, 0.3, 0.3}, torch::kDouble).view({3, 3});
    const std::vector<int64_t> labels = {1, 2, 0};
    QCOMPARE(topKAccuracy(scores, labels, 1), 1.0 / 3.0);  // row 0 hits; row 1 misses; row 2 is a three-way tie
    QCOMPARE(topKAccuracy(scores, labels, 2), 1.0 / 3.0);
    QCOMPARE(topKAccuracy(scores, labels, 3), 1.0);
  }

  void cosineFindsAStoryEmbeddedTwice() {
    AnalysisModel m = loadAnalysisModel(ModelSource::checkpoint(run_dir_));
    const auto pairs = syntheticStoryPairs(20, 3);
    std::vector<std::string> stories;
    for (const auto& p : pairs) stories.push_back(p.story);
    const auto corpus = embedTexts(m, stories, {});
    QCOMPARE(corpus.sizes().vec(), (std::vector<int64_t>{20, 32}));
    const auto again = embedTexts(m, {stories[7]}, {});
    const auto ranked = rankByCosine(again[0], corpus, 3);
    QCOMPARE(ranked.size(), size_t{3});
    QCOMPARE(ranked[0].index, int64_t{7});
    QVERIFY(std::abs(ranked[0].score - 1.0) < 1e-5);
    QVERIFY(ranked[1].score < ranked[0].score);
    // Ranks of single stories (the panel's "true match: rank r"): the story itself is first, the
    // others follow in rankByCosine's order, and the worst is last.
    const auto scores = cosineScores(again[0], corpus);
    QCOMPARE(rankOf(scores, 7), int64_t{1});
    QCOMPARE(rankOf(scores, ranked[1].index), int64_t{2});
    QCOMPARE(rankOf(scores, rankByCosine(again[0], corpus, 20).back().index), int64_t{20});
  }

  // The mixer is read at T-2 (left padding): equal to hiddenStates there.
  void mixerEmbeddingIsTheSecondToLastPosition() {
    AnalysisModel m = loadAnalysisModel(ModelSource::checkpoint(run_dir_));
    const std::string text = "Tom had a red ball.";
    const auto e = embedTexts(m, {text}, {});
    const auto encoded = m.encode(text);
    auto ids = torch::full({1, 32}, m.padId(), torch::kLong);
    for (size_t t = 0; t < encoded.size(); ++t)
      ids[0][32 - static_cast<int64_t>(encoded.size()) + static_cast<int64_t>(t)] = encoded[t];
    torch::NoGradGuard no_grad;
    const auto expected = m.model->hiddenStates(ids)[0][30];
    QVERIFY(torch::allclose(e[0], expected, 1e-6, 1e-6));
  }

  // A dataset folder round trip, and interactive search: a held-out story's own summary finds it
  // among the top hits, searched with the same embeddings the folder holds.
  void datasetFolderAndSearch() {
    const fs::path data = dir_ / "retrieval-data";
    const auto pairs = syntheticStoryPairs(40, 9);
    const auto built = buildRetrievalDataset(ModelSource::checkpoint(run_dir_), pairs, 0.25, {}, data);
    QCOMPARE(built.train_count, int64_t{30});
    const auto loaded = loadRetrievalDataset(data);
    QVERIFY(torch::equal(loaded.target_test, built.target_test));
    QCOMPARE(loaded.pairs.size(), size_t{40});
    RetrievalSearch search(data);
    QCOMPARE(search.storyCount(), int64_t{40});
    const auto hits = search.search(pairs[35].story, 1);  // a story embedded again finds itself
    QCOMPARE(hits.size(), size_t{1});
    QCOMPARE(hits[0].id, int64_t{35});
    QVERIFY(hits[0].held_out);
    const auto [top1, top5] = search.heldOutAccuracy(5);
    QVERIFY(top1 >= 0 && top1 <= top5 && top5 <= 1.0);
  }

  void cacheIsKeyedByTheWeights() {
    const auto checkpoints = listCheckpoints(run_dir_ / "checkpoints");
    QVERIFY(checkpoints.size() >= 2);
    const fs::path cache = dir_ / "embedding-cache";
    const std::vector<std::string> texts = {"A cat sat.", "The dog ran to the park."};
    auto embed = [&](const fs::path& checkpoint, bool& reused) {
      const ModelSource source = ModelSource::checkpoint(checkpoint);
      AnalysisModel m = loadAnalysisModel(source);
      return cachedEmbeddings(m, modelKey(source), texts, {}, cache, &reused);
    };
    bool reused = true;
    const auto first = embed(checkpoints[0], reused);
    QVERIFY(!reused);
    const auto again = embed(checkpoints[0], reused);
    QVERIFY(reused);
    QVERIFY(torch::equal(first, again));
    const auto other = embed(checkpoints[1], reused);
    QVERIFY(!reused);
    QVERIFY(!torch::allclose(first, other));
    // The same folder with new weights (a checkpoint overwritten in place) is not served stale vectors.
    fs::copy_file(checkpoints[1] / "model.safetensors", checkpoints[0] / "model.safetensors",
                  fs::copy_options::overwrite_existing);
    const auto replaced = embed(checkpoints[0], reused);
    QVERIFY(reused);  // the cache file of checkpoint 1's weights is found under the new key
    QVERIFY(torch::equal(replaced, other));
  }
};

QTEST_GUILESS_MAIN(TestRetrievalEmbeddings)
#include "test_retrieval_embeddings.moc"
