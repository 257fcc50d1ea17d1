// Retrieval embeddings and scoring: top-k accuracy counts a hand-made case exactly (ties
// count against the truth); cosine ranking puts the true story first among distractors of larger and
// smaller norm (hand-made and real embeddings), so only the direction counts; the held-out cosine
// measure does the same; cosine retrieval finds a story embedded twice; embeddings are read at the
// family's position from the run's padding side (autoencoders: from their encoder, which the decoder's
// weights cannot change), before or after the family's final norm; the disk cache is reused for the same weights and
// texts and invalidated when the checkpoint's weights change.
#include <torch/torch.h>
#include <QtTest/QtTest>

#include "core/analysis/analysis_model.h"
#include "core/analysis/retrieval/cosine_retrieval.h"
#include "core/analysis/retrieval/retrieval_corpus.h"
#include "core/analysis/retrieval/retrieval_dataset.h"
#include "core/analysis/retrieval/retrieval_search.h"
#include "core/analysis/retrieval/retrieval_training.h"
#include "core/analysis/retrieval/text_embeddings.h"
#include "core/config/project_config.h"
#include "core/data/story_pairs.h"
#include "core/models/composite/autoencoders.h"
#include "core/models/model_registry.h"
#include "core/train/checkpoint.h"
#include "core/train/trainer.h"
#include "tests/training_fixture.h"

using namespace mixerlab;
namespace fs = std::filesystem;

namespace {
// The corpus rows in rankByCosine's order, best first.
std::vector<int64_t> rankedIndices(const at::Tensor& query, const at::Tensor& corpus) {
  std::vector<int64_t> out;
  for (const auto& r : rankByCosine(query, corpus, corpus.size(0))) out.push_back(r.index);
  return out;
}
}  // namespace

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

  // The true story (row 2) points almost along the query (cosine 0.96) but is short; the distractors
  // point further away, some much longer (a dot product, or cosines without the corpus side
  // normalised, would rank rows 0 and 3 first) and some much shorter (dividing by a squared norm
  // would rank rows 1 and 5 first). The product's ranking (the CLI's rankByCosine, the panel's
  // cosineScores + topMatches + rankOf) must put the true story first and report every rank.
  void trueStoryRanksFirstWhateverTheNorms() {
    const auto query = torch::tensor({3.0, 0.0, 0.0, 0.0}, torch::kDouble);  // norm 3
    const std::vector<std::pair<double, std::vector<double>>> rows = {
        {10.0, {0.8, 0.6, 0.0, 0.0}},     // 0: cosine 0.8, norm 10
        {0.1, {0.6, 0.0, 0.8, 0.0}},      // 1: cosine 0.6, norm 0.1
        {1.0, {0.96, 0.0, 0.0, 0.28}},    // 2: cosine 0.96, norm 1: the true story
        {20.0, {0.28, 0.96, 0.0, 0.0}},   // 3: cosine 0.28, norm 20
        {7.0, {-0.6, 0.0, 0.0, 0.8}},     // 4: cosine -0.6, norm 7
        {0.05, {-0.28, 0.0, 0.96, 0.0}},  // 5: cosine -0.28, norm 0.05
    };
    const std::vector<double> cosines = {0.8, 0.6, 0.96, 0.28, -0.6, -0.28};
    auto corpus = torch::zeros({6, 4}, torch::kDouble);
    for (size_t i = 0; i < rows.size(); ++i) {
      for (size_t d = 0; d < 4; ++d)
        corpus[static_cast<int64_t>(i)][static_cast<int64_t>(d)] = rows[i].first * rows[i].second[d];
    }
    QCOMPARE(rankedIndices(query, corpus), (std::vector<int64_t>{2, 0, 1, 3, 5, 4}));
    const auto best = rankByCosine(query, corpus, 1);
    QCOMPARE(best.size(), size_t{1});
    QCOMPARE(best[0].index, int64_t{2});
    QVERIFY(std::abs(best[0].score - 0.96) < 1e-12);
    const auto scores = cosineScores(query, corpus);
    const auto top = topMatches(scores, 3);
    QCOMPARE(top.size(), size_t{3});
    QCOMPARE(top[0].index, int64_t{2});
    QCOMPARE(top[1].index, int64_t{0});
    QCOMPARE(top[2].index, int64_t{1});
    const std::vector<int64_t> expected_rank = {2, 3, 1, 4, 6, 5};  // of rows 0..5
    for (size_t i = 0; i < expected_rank.size(); ++i)
      QCOMPARE(rankOf(scores, static_cast<int64_t>(i)), expected_rank[i]);
    // The scores are the cosines themselves (the query side normalised too).
    for (size_t i = 0; i < cosines.size(); ++i) {
      QVERIFY2(std::abs(scores[static_cast<int64_t>(i)].item<double>() - cosines[i]) < 1e-12,
               qPrintable(QString("row %1: %2, expected %3")
                              .arg(i)
                              .arg(scores[static_cast<int64_t>(i)].item<double>())
                              .arg(cosines[i])));
    }
    // Float32 embeddings, as the models give them, rank the same.
    QCOMPARE(rankedIndices(query.to(torch::kFloat), corpus.to(torch::kFloat)),
             (std::vector<int64_t>{2, 0, 1, 3, 5, 4}));
  }

  // Real embeddings: a story embedded again ranks first, and rescaling the corpus rows (the true one
  // shrunk, the others grown by different factors) changes neither the scores nor the order.
  void rescaledStoryEmbeddingsKeepTheirRanks() {
    AnalysisModel m = loadAnalysisModel(ModelSource::checkpoint(run_dir_));
    const auto pairs = syntheticStoryPairs(20, 3);
    std::vector<std::string> stories;
    for (const auto& p : pairs) stories.push_back(p.story);
    const auto corpus = embedTexts(m, stories, {});
    const auto query = embedTexts(m, {stories[7]}, {})[0];
    auto factors = torch::empty({20, 1});
    for (int64_t i = 0; i < 20; ++i) factors[i][0] = i == 7 ? 0.01 : 10.0 * static_cast<double>(i + 1);
    const auto rescaled = corpus * factors;
    const auto order = rankedIndices(query, corpus);
    QCOMPARE(order.front(), int64_t{7});
    QCOMPARE(rankedIndices(query, rescaled), order);
    QCOMPARE(rankedIndices(query * 50.0, rescaled), order);
    const auto scores = cosineScores(query, rescaled);
    QCOMPARE(rankOf(scores, 7), int64_t{1});
    QVERIFY(torch::allclose(scores, cosineScores(query, corpus), 1e-6, 1e-6));
    QVERIFY(std::abs(scores[7].item<double>() - 1.0) < 1e-5);
  }

  // The held-out cosine measure (the CLI's `retrieval eval`, the panel's held-out accuracy, InfoNCE's
  // progress): query n = (n % 3 + 1) (e_n + u), its target s_n (0.6 e_n + 0.8 u) with s_n 1 or 100.
  // Every true cosine is 1.4 / sqrt 2 and every other 0.8 / sqrt 2, so top-1 is exactly 1 and the
  // loss is known, whatever candidates are drawn; unnormalised targets would lose to the long ones.
  void heldOutCosineAccuracyIgnoresNorms() {
    const int64_t n = 24;
    auto queries = torch::zeros({n, n + 1});
    auto targets = torch::zeros({n, n + 1});
    for (int64_t i = 0; i < n; ++i) {
      const double query_norm = static_cast<double>(i % 3 + 1), target_norm = i % 2 == 0 ? 1.0 : 100.0;
      queries[i][i] = query_norm;
      queries[i][n] = query_norm;
      targets[i][i] = 0.6 * target_norm;
      targets[i][n] = 0.8 * target_norm;
    }
    const auto e = evaluateCosineRetrieval(queries, targets, 8, 3);  // 7 candidates: 1 true, 6 others
    QCOMPARE(e.eval_top1, 1.0);
    QCOMPARE(e.eval_top5, 1.0);
    const double truth = 1.4 / std::sqrt(2.0), other = 0.8 / std::sqrt(2.0);
    const double expected_loss = std::log(std::exp(truth) + 6 * std::exp(other)) - truth;
    QVERIFY2(std::abs(e.eval_loss - expected_loss) < 1e-5,
             qPrintable(QString("%1, expected %2").arg(e.eval_loss).arg(expected_loss)));
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

  // Every autoencoder family of the registry: the embedding is the encoder's output at the last
  // position (left padding), so new decoder or head weights leave it unchanged and new encoder
  // weights change it.
  void autoencoderEmbeddingIsTheEncoderLastToken() {
    const fs::path dir = dir_ / "autoencoders";
    auto project = nlohmann::json::parse(std::ifstream(testing::writeTinyProject(dir)));
    std::vector<std::string> autoencoders;
    for (const auto& a : architectures()) {
      ModelConfig c = ModelConfig::fromJson(
          {{"arch", a.name}, {"vocab_size", 512}, {"d_model", 32}, {"n_layers", 2}, {"context_length", 32}});
      if (dynamic_cast<AutoencoderBase*>(buildModel(c).get()) == nullptr) continue;
      autoencoders.push_back(a.name);
      project["runs"].push_back({{"name", a.name}, {"model", {{"arch", a.name}}}});
    }
    QVERIFY(autoencoders.size() >= 2);  // mixer and transformer autoencoders
    testing::writeText(dir / "project.json", project.dump(2));
    const std::vector<std::string> texts = {"Tom had a red ball.", "The dog ran to the park and sat down."};
    for (const std::string& arch : autoencoders) {
      torch::manual_seed(11);
      AnalysisModel m = loadAnalysisModel(ModelSource::projectRun(dir / "project.json", arch));
      auto& model = dynamic_cast<AutoencoderBase&>(*m.model);
      const auto before = embedTexts(m, texts, {});
      const auto encoded = m.encode(texts[0]);
      auto ids = torch::full({1, 32}, m.padId(), torch::kLong);
      for (size_t t = 0; t < encoded.size(); ++t)
        ids[0][32 - static_cast<int64_t>(encoded.size()) + static_cast<int64_t>(t)] = encoded[t];
      {
        torch::NoGradGuard no_grad;
        QVERIFY2(torch::allclose(before[0], model.embed(ids)[0], 1e-6, 1e-6), arch.c_str());
        for (auto& p : model.named_parameters()) {
          if (p.key().rfind("decoder", 0) == 0 || p.key().rfind("lm_head", 0) == 0) p.value().normal_(0.0, 0.5);
        }
      }
      QVERIFY2(torch::equal(embedTexts(m, texts, {}), before), (arch + ": the decoder changed the embedding").c_str());
      {
        torch::NoGradGuard no_grad;
        for (auto& p : model.named_parameters()) {
          if (p.key().rfind("encoder", 0) == 0) p.value().normal_(0.0, 0.5);
        }
      }
      QVERIFY2(!torch::allclose(embedTexts(m, texts, {}), before), (arch + ": the encoder did not matter").c_str());
    }
  }

  // The paper-era transformer reading: after Llama's final RMSNorm (x / sqrt(mean(x^2) + 1e-6) times
  // its weight, worked out here by hand) at the last position; a mixer has no final norm, so both
  // readings agree. A dataset folder records the reading and a reused folder must have read the same.
  void finalNormReadingIsTheNormedLastLayer() {
    const fs::path dir = dir_ / "final-norm";
    const fs::path project_file = testing::writeTinyProject(dir);  // its "llama" run
    const std::vector<std::string> texts = {"Tom had a red ball.", "The dog ran to the park and sat down."};
    EmbeddingSettings after;
    after.after_final_norm = true;
    torch::manual_seed(5);
    AnalysisModel llama = loadAnalysisModel(ModelSource::projectRun(project_file, "llama"));
    at::Tensor weight;
    {
      torch::NoGradGuard no_grad;
      for (auto& p : llama.model->named_parameters()) {
        if (p.key() == "model.norm.weight") weight = p.value().normal_(1.0, 0.5);
      }
    }
    QVERIFY(weight.defined());
    const auto before = embedTexts(llama, texts, {});
    const auto normed = embedTexts(llama, texts, after);
    const auto expected = before * torch::rsqrt(before.pow(2).mean(-1, true) + 1e-6) * weight;
    QVERIFY(torch::allclose(normed, expected, 1e-5, 1e-5));
    QVERIFY(!torch::allclose(normed, before, 1e-3, 1e-3));
    AnalysisModel mixer = loadAnalysisModel(ModelSource::checkpoint(run_dir_));
    QVERIFY(torch::equal(embedTexts(mixer, texts, after), embedTexts(mixer, texts, {})));
    // Folders: each reading its own, recorded in retrieval.json and checked when reused.
    const auto corpus = RetrievalCorpus::synthetic(12, 3);
    const fs::path root = dir / "datasets";
    const auto plain = ensureRetrievalDataset(corpus, ModelSource::checkpoint(run_dir_), root);
    const auto read_after = ensureRetrievalDataset(corpus, ModelSource::checkpoint(run_dir_), root, {}, nullptr, after);
    QVERIFY(plain.dir != read_after.dir && plain.built && read_after.built);
    QCOMPARE(loadRetrievalDataset(read_after.dir).embedding.after_final_norm, true);
    QCOMPARE(loadRetrievalDataset(plain.dir).embedding.after_final_norm, false);
    QVERIFY(!ensureRetrievalDataset(corpus, ModelSource::checkpoint(run_dir_), root, {}, nullptr, after).built);
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
    // The panel's "true match: rank r": the marked story's place among all stories.
    const auto marked = search.search(pairs[35].story, 3, 35);
    QCOMPARE(marked.hits.size(), size_t{3});
    QCOMPARE(marked.marked_rank, int64_t{1});
    QVERIFY(std::abs(marked.marked_score - marked.hits[0].score) < 1e-12);
    QCOMPARE(search.search(pairs[35].story, 3, marked.hits[2].id).marked_rank, int64_t{3});
    const auto [top1, top5] = search.heldOutAccuracy(5);
    QVERIFY(top1 >= 0 && top1 <= top5 && top5 <= 1.0);
  }

  // A folder whose embeddings were read another way (retrieval.json's embedding_states 1, or no such
  // key: written before it was recorded) is built again; the current reading is reused.
  void datasetOfAnOlderEmbeddingReadingIsRebuilt() {
    const fs::path root = dir_ / "ensured";
    const RetrievalCorpus corpus = RetrievalCorpus::synthetic(12, 3);
    const ModelSource source = ModelSource::checkpoint(run_dir_);
    const auto first = ensureRetrievalDataset(corpus, source, root);
    QVERIFY(first.built);
    QVERIFY(!ensureRetrievalDataset(corpus, source, root).built);
    const fs::path meta_file = first.dir / "retrieval.json";
    auto meta = nlohmann::json::parse(std::ifstream(meta_file));
    QCOMPARE(meta.at("embedding_states").get<int>(), kEmbeddingStatesVersion);
    meta["embedding_states"] = kEmbeddingStatesVersion - 1;
    testing::writeText(meta_file, meta.dump(2));
    QVERIFY(ensureRetrievalDataset(corpus, source, root).built);
    meta.erase("embedding_states");
    testing::writeText(meta_file, meta.dump(2));
    QVERIFY(ensureRetrievalDataset(corpus, source, root).built);
    QVERIFY(!ensureRetrievalDataset(corpus, source, root).built);
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
    writeCheckpointManifest(checkpoints[0]);  // rewritten as a writer would, not damaged
    const auto replaced = embed(checkpoints[0], reused);
    QVERIFY(reused);  // the cache file of checkpoint 1's weights is found under the new key
    QVERIFY(torch::equal(replaced, other));
  }
};

QTEST_GUILESS_MAIN(TestRetrievalEmbeddings)
#include "test_retrieval_embeddings.moc"
