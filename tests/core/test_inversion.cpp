// Representation inversion (docs/inversion.md): inverting the embedding layer itself recovers the
// input exactly (also for GPT, whose learned positions must be subtracted before decoding); the
// Hamming distance counts non-pad positions only; cancelling stops within one iteration; and the
// paper's finding, measured rather than assumed: an untrained flat masked mixer (D=256, T=64)
// recovers its input from the last layer with Hamming < 0.1, an untrained Llama of the same width
// does far worse. The scale-aware descent (scale = embedding) is scale-covariant on a model whose blocks are
// linear: scaling its embedding matrix gives the same Hamming distances and the same relative descent,
// which the research's fixed start and step do not.
#include <torch/torch.h>
#include <QtTest/QtTest>

#include <atomic>
#include <cmath>

#include "core/analysis/analysis_model.h"
#include "core/analysis/inversion.h"
#include "core/analysis/inversion_convergence.h"
#include "core/analysis/inversion_json.h"
#include "tests/test_support.h"
#include "tests/training_fixture.h"

using namespace mixerlab;
namespace fs = std::filesystem;

namespace {

const char* kStory =
    "Once upon a time, there was a little girl named Lily. She loved to play outside in the sun with her dog.";

fs::path writeProject(const fs::path& dir) {
  const std::string json = "{" + testing::demoCorpusJson() + R"(,
    "tokenizer": {"vocab_size": 1024},
    "defaults": {"model": {"d_model": 256, "n_layers": 4, "context_length": 64, "n_heads": 4},
                 "train": {"device": "cpu", "threads": 2, "seed": 3, "max_steps": 1}},
    "runs": [
      {"name": "mixer", "model": {"arch": "masked_mixer"}},
      {"name": "llama", "model": {"arch": "llama"}},
      {"name": "gpt", "model": {"arch": "gpt", "d_model": 64, "n_layers": 2}},
      {"name": "small_mixer", "model": {"arch": "masked_mixer", "d_model": 64, "n_layers": 2}}
    ]
  })";
  testing::writeText(dir / "project.json", json);
  return dir / "project.json";
}

// Blocks that are linear maps without bias or normalisation, so layer k of c * e is c times layer k of e
// and the exact inverse is known. The embedding matrix is N(0, 1) times `embedding_scale`; the blocks
// are the same for every scale (from their own seed).
class LinearStack : public LanguageModel {
 public:
  LinearStack(const ModelConfig& config, double embedding_scale) : LanguageModel(config) {
    torch::manual_seed(21);
    embedding_ = register_parameter("wte", torch::randn({config.vocab_size, config.d_model}) * embedding_scale);
    for (int64_t i = 0; i < config.n_layers; ++i) {
      blocks_.push_back(
          register_parameter("block" + std::to_string(i),
                             torch::eye(config.d_model) + 0.3 * torch::randn({config.d_model, config.d_model}) /
                                                              std::sqrt(static_cast<double>(config.d_model))));
    }
  }
  at::Tensor forward(const at::Tensor& ids) override { return torch::matmul(hiddenStates(ids), embedding_.t()); }
  at::Tensor hiddenStates(const at::Tensor& ids) override {
    return layerOutput(inputEmbeddings(ids), representationLayers());
  }
  int64_t representationLayers() const override { return static_cast<int64_t>(blocks_.size()); }
  at::Tensor tokenEmbeddingMatrix() override { return embedding_; }
  at::Tensor layerOutput(const at::Tensor& embeds, int64_t layer) override {
    at::Tensor h = embeds;
    for (int64_t i = 0; i < layer; ++i) h = torch::matmul(h, blocks_[static_cast<size_t>(i)]);
    return h;
  }

 private:
  at::Tensor embedding_;
  std::vector<at::Tensor> blocks_;
};

InversionSettings atLayer(int64_t layer, int64_t iterations = 500) {
  InversionSettings s;
  s.layers = {layer};
  s.iterations = iterations;
  s.device = "cpu";
  return s;
}

}  // namespace

class TestInversion : public QObject {
  Q_OBJECT
  fs::path project_;

  ModelSource untrained(const std::string& run) const { return ModelSource::projectRun(project_, run); }

 private Q_SLOTS:
  // A descent is still improving when the last fifth of its steps lowered the loss
  // by more than 1 % of its value there; a curve that has flattened is settled.
  void stillImprovingReadsTheLastFifth() {
    std::vector<double> falling;
    for (int i = 0; i < 100; ++i) falling.push_back(100.0 - 0.5 * i);  // 100 .. 50.5
    QVERIFY(inversionStillImproving(falling, 50.0));                   // from 60 at step 80: 17 %
    std::vector<double> settled(70, 100.0);
    settled.insert(settled.end(), 30, 10.0);  // flat over the last 30 steps
    QVERIFY(!inversionStillImproving(settled, 10.0));
    QVERIFY(!inversionStillImproving(settled, 9.95));  // 0.5 %: below the tolerance
    QVERIFY(inversionStillImproving(settled, 9.8));    // 2 %
    QVERIFY(!inversionStillImproving({}, 1.0));
    QVERIFY(inversionStillImproving({4.0, 3.0}, 2.0));  // two steps: the window is the last one
  }

  void initTestCase() {
    at::set_num_threads(2);
    project_ = writeProject(testing::makeScratchDir("inversion"));
  }

  void embeddingLayerRecoversTheInputExactly() {
    const auto r = invertTexts(untrained("small_mixer"), {kStory}, atLayer(0)).at(0);
    QCOMPARE(r.layer, int64_t{0});
    QVERIFY(r.counted_positions > 10);
    QCOMPARE(r.hamming_exact, 0.0);
    QCOMPARE(r.hamming_top_k, 0.0);
    // The reference tokens are the input's own (the 0.05 noise does not move the decoding).
    for (const auto& t : r.tokens) QCOMPARE(t.reference_id, t.original_id);
  }

  // GPT adds learned position embeddings to the token embedding: decoding must subtract them.
  void gptPositionsAreSubtractedBeforeDecoding() {
    const auto r = invertTexts(untrained("gpt"), {kStory}, atLayer(0)).at(0);
    QCOMPARE(r.hamming_exact, 0.0);
  }

  // Pads (the run's pad token, here eos, on the left) are not counted; the metric is recomputed
  // from the per-token flags.
  void hammingCountsNonPadPositionsOnly() {
    const AnalysisModel m = loadAnalysisModel(untrained("small_mixer"));
    const int64_t tokens = static_cast<int64_t>(m.encode(kStory).size());
    QVERIFY(tokens < 64);
    const auto r = invertTexts(untrained("small_mixer"), {kStory}, atLayer(-1, 60)).at(0);
    QCOMPARE(static_cast<int64_t>(r.tokens.size()), int64_t{64});
    QCOMPARE(r.counted_positions, tokens);
    int64_t misses = 0, exact_misses = 0;
    for (int64_t t = 0; t < 64; ++t) {
      const auto& tok = r.tokens[t];
      QCOMPARE(tok.counted, t >= 64 - tokens);  // left padding
      if (!tok.counted) QCOMPARE(tok.original_id, m.padId());
      if (tok.counted && !tok.top_k_match) ++misses;
      if (tok.counted && !tok.exact) ++exact_misses;
    }
    QCOMPARE(r.hamming_top_k, static_cast<double>(misses) / static_cast<double>(tokens));
    QCOMPARE(r.hamming_exact, static_cast<double>(exact_misses) / static_cast<double>(tokens));
    QVERIFY(r.hamming_exact >= r.hamming_top_k);
  }

  // A position matches when its reference token is among the top_k candidates, the k-th included.
  // A short inversion leaves reference tokens at ranks 2..k; a second run with top_k set to one of
  // those ranks (the inversion does not depend on top_k) puts a reference exactly at the k-th
  // candidate. Expected flags come from the ranks, not from the flags.
  void topKMatchIncludesTheKthCandidate() {
    auto settings = atLayer(-1, 8);
    settings.top_k = 5;
    const auto first = invertTexts(untrained("small_mixer"), {kStory}, settings).at(0);
    int64_t boundary = 0;
    size_t at = 0;
    for (size_t i = 0; i < first.tokens.size() && boundary == 0; ++i) {
      const auto& tok = first.tokens[i];
      if (tok.counted && tok.reference_rank >= 2 && tok.reference_rank <= 200) {
        boundary = tok.reference_rank;
        at = i;
      }
    }
    QVERIFY2(boundary > 0, "no reference token ranked 2..200 after 8 iterations: shorten the inversion");
    settings.top_k = boundary;
    const auto r = invertTexts(untrained("small_mixer"), {kStory}, settings).at(0);
    QCOMPARE(r.tokens[at].reference_rank, boundary);  // same inversion, another k
    QVERIFY(!r.tokens[at].exact);
    QVERIFY2(r.tokens[at].top_k_match, qPrintable(QString("rank %1 with top_k %1 is not a match").arg(boundary)));
    int64_t misses = 0;
    for (const auto& tok : r.tokens) {
      QCOMPARE(static_cast<int64_t>(tok.candidates.size()), boundary);
      QCOMPARE(tok.top_k_match, tok.reference_rank <= boundary);
      QCOMPARE(tok.exact, tok.reference_rank == 1);
      if (tok.counted && tok.reference_rank > boundary) ++misses;
    }
    QCOMPARE(r.hamming_top_k, static_cast<double>(misses) / static_cast<double>(r.counted_positions));
  }

  void cancellingStopsWithinOneIteration() {
    std::atomic<bool> cancel{false};
    int64_t last_seen = 0;
    auto settings = atLayer(-1, 500);
    settings.layers = {1, 2};
    const auto results = invertTexts(
        untrained("small_mixer"), {kStory, "The dog ran."}, settings,
        [&](const InversionProgress& p) {
          last_seen = p.iteration;
          if (p.iteration == 3) cancel = true;
        },
        &cancel);
    QCOMPARE(last_seen, int64_t{3});
    QCOMPARE(results.size(), size_t{2});  // layer 1 for both inputs; layer 2 never starts
    for (const auto& r : results) {
      QVERIFY(r.cancelled);
      QCOMPARE(r.loss_curve.size(), size_t{3});
    }
  }

  // The descent makes progress and the loss curve is the summed L1 of every step.
  void lossFallsAndCurveHasEveryStep() {
    auto settings = atLayer(2, 80);
    settings.objective = InversionObjective::kLastPosition;
    const auto r = invertTexts(untrained("small_mixer"), {kStory}, settings).at(0);
    QCOMPARE(r.loss_curve.size(), size_t{80});
    QVERIFY(r.final_loss < 0.5 * r.loss_curve.front());
    QVERIFY(r.epsilon_l1 > 0);
  }

  void paperFindingUntrainedMixerVersusLlama() {
    const auto mixer = invertTexts(untrained("mixer"), {kStory}, atLayer(-1)).at(0);
    const auto llama = invertTexts(untrained("llama"), {kStory}, atLayer(-1)).at(0);
    qInfo("untrained D=256 T=64, 4 layers, last layer: mixer Hamming top-5 %.3f (exact %.3f), llama %.3f (exact %.3f)",
          mixer.hamming_top_k, mixer.hamming_exact, llama.hamming_top_k, llama.hamming_exact);
    QVERIFY2(mixer.hamming_top_k < 0.1, qPrintable(QString("mixer Hamming %1").arg(mixer.hamming_top_k)));
    QVERIFY2(llama.hamming_top_k > mixer.hamming_top_k + 0.3,
             qPrintable(QString("llama Hamming %1 vs mixer %2").arg(llama.hamming_top_k).arg(mixer.hamming_top_k)));
  }

  void scaleAwareDescentIsScaleCovariant() {
    AnalysisModel m = loadAnalysisModel(untrained("small_mixer"));  // the project's tokenizer and padding
    ModelConfig config = m.model->config();
    config.d_model = 24;
    config.n_layers = 2;
    auto settings = atLayer(2, 150);
    settings.pad_to_context = false;
    const auto invertAt = [&](double embedding_scale, InversionScale scale) {
      m.model = std::make_shared<LinearStack>(config, embedding_scale);
      settings.scale = scale;
      return invertTexts(m, {kStory}, settings).at(0);
    };
    // The descent relative to the target's size, at a few steps and at the end.
    const auto relative = [](const InversionResult& r) {
      std::vector<double> out;
      for (size_t i : {size_t{0}, size_t{10}, size_t{50}, size_t{149}}) out.push_back(r.loss_curve.at(i) / r.target_l1);
      out.push_back(r.final_loss / r.target_l1);
      return out;
    };
    const auto close = [](const std::vector<double>& a, const std::vector<double>& b, double tolerance) {
      for (size_t i = 0; i < a.size(); ++i)
        if (std::abs(a[i] - b[i]) > tolerance * std::max(std::abs(a[i]), 1e-6)) return false;
      return true;
    };
    const InversionResult unit = invertAt(1.0, InversionScale::kEmbedding);
    const InversionResult small = invertAt(0.02, InversionScale::kEmbedding);
    QVERIFY(std::abs(small.embedding_std / unit.embedding_std - 0.02) < 1e-6);
    QCOMPARE(small.start_std, small.embedding_std);
    QVERIFY(std::abs(small.learning_rate - 0.02 * small.embedding_std) < 1e-12);  // eta_0 = 0.02 * s
    QCOMPARE(small.hamming_top_k, unit.hamming_top_k);
    QCOMPARE(small.hamming_exact, unit.hamming_exact);
    QVERIFY2(close(relative(small), relative(unit), 1e-3), "the relative descent depends on the embedding's scale");
    QVERIFY(unit.hamming_exact < 0.2);  // a linear stack inverts
    // The result JSON records the scale-aware settings and what the descent used.
    auto aware = settings;
    aware.scale = InversionScale::kEmbedding;
    QCOMPARE(inversionSettingsJson(aware).at("scale").get<std::string>(), std::string("embedding"));
    QCOMPARE(inversionSettingsJson(atLayer(1)).at("scale").get<std::string>(), std::string("research"));
    const auto small_json = inversionResultJson(small, settings.top_k);
    QCOMPARE(small_json.at("embedding_std").get<double>(), small.embedding_std);
    QCOMPARE(small_json.at("start_std").get<double>(), small.embedding_std);
    QCOMPARE(small_json.at("learning_rate").get<double>(), small.learning_rate);
    // The research's settings: the same start N(0, 1) and step for both, so the descents differ.
    const InversionResult unit_research = invertAt(1.0, InversionScale::kResearch);
    const InversionResult small_research = invertAt(0.02, InversionScale::kResearch);
    QCOMPARE(small_research.start_std, 1.0);
    QCOMPARE(small_research.learning_rate, 0.02);
    QVERIFY(!close(relative(small_research), relative(unit_research), 0.1));
    QVERIFY2(small_research.hamming_exact > unit_research.hamming_exact + 0.2,
             qPrintable(QString("research settings: Hamming %1 at scale 0.02, %2 at scale 1")
                            .arg(small_research.hamming_exact)
                            .arg(unit_research.hamming_exact)));
  }

  void badLayerNamesTheRange() {
    try {
      invertTexts(untrained("small_mixer"), {kStory}, atLayer(9));
      QFAIL("layer 9 of a 2-layer model was accepted");
    } catch (const std::exception& e) {
      QVERIFY2(std::string(e.what()).find("0..2") != std::string::npos, e.what());
    }
  }
};

QTEST_GUILESS_MAIN(TestInversion)
#include "test_inversion.moc"
