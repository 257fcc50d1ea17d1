// Next-token choice tests (core/analysis/sampling): greedy is the argmax and ignores the seed; a
// fixed seed reproduces a sampled sequence; temperature rescales the logits; top-k and top-p keep
// exactly the candidates their definitions say (hand-computed on small distributions); the
// repetition penalty follows HF's rule; bad settings are rejected by name.
#include <torch/torch.h>
#include <QtTest/QtTest>

#include <cmath>
#include <set>

#include "core/analysis/sampling.h"
#include "core/util/error.h"

using namespace mixerlab;

Q_DECLARE_METATYPE(std::vector<int64_t>)

namespace {
// Logits whose softmax is exactly `probs`.
at::Tensor logitsOf(const std::vector<double>& probs) { return torch::tensor(probs, torch::kFloat64).log(); }
std::vector<int64_t> nonZero(const at::Tensor& dist) {
  std::vector<int64_t> ids;
  for (int64_t i = 0; i < dist.size(0); ++i) {
    if (dist[i].item<double>() > 0) ids.push_back(i);
  }
  return ids;
}
}  // namespace

class TestSampling : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void greedyIsArgmaxAndIgnoresTheSeed() {
    SamplingSettings s;
    s.greedy = true;
    const auto logits = logitsOf({0.1, 0.2, 0.6, 0.1});
    for (uint64_t seed : {1u, 2u, 3u}) {
      std::mt19937_64 rng(seed);
      const TokenChoice c = chooseToken(logits, {}, s, rng);
      QCOMPARE(c.id, 2);
      QVERIFY(std::abs(c.prob - 0.6) < 1e-12);
      QCOMPARE(c.top.size(), size_t{4});
      QCOMPARE(c.top.front().first, 2);
      QCOMPARE(c.top[1].first, 1);
    }
  }

  void aFixedSeedReproducesASample() {
    torch::manual_seed(0);
    const auto logits = torch::randn({50}, torch::kFloat64);
    SamplingSettings s;
    s.top_p = 0.9;
    auto draw = [&](uint64_t seed) {
      std::mt19937_64 rng(seed);
      std::vector<int> ids;
      for (int i = 0; i < 64; ++i) ids.push_back(chooseToken(logits, {}, s, rng).id);
      return ids;
    };
    QCOMPARE(draw(7), draw(7));
    QVERIFY(draw(7) != draw(8));
  }

  void temperatureDividesTheLogits() {
    const auto logits = torch::tensor({1.0, 2.0, 0.5}, torch::kFloat64);
    SamplingSettings s;
    s.temperature = 0.5;
    const auto expected = torch::softmax(logits / 0.5, 0);
    QVERIFY(torch::allclose(samplingDistribution(logits, {}, s), expected, 1e-12, 1e-14));
  }

  void topKKeepsTheKMostLikely() {
    const auto logits = logitsOf({0.05, 0.3, 0.1, 0.4, 0.15});
    SamplingSettings s;
    s.top_k = 3;
    const auto dist = samplingDistribution(logits, {}, s);
    QCOMPARE(nonZero(dist), (std::vector<int64_t>{1, 3, 4}));
    // Renormalised: 0.3, 0.4, 0.15 over 0.85.
    QVERIFY(std::abs(dist[3].item<double>() - 0.4 / 0.85) < 1e-12);
    std::mt19937_64 rng(3);
    std::set<int> seen;
    for (int i = 0; i < 2000; ++i) seen.insert(chooseToken(logits, {}, s, rng).id);
    QCOMPARE(seen, (std::set<int>{1, 3, 4}));
  }

  // Nucleus: the smallest set of most likely tokens whose mass reaches p (the one crossing p kept).
  void topPKeepsTheSmallestSetReachingP_data() {
    QTest::addColumn<double>("p");
    QTest::addColumn<std::vector<int64_t>>("kept");
    // probabilities: id0 0.05, id1 0.15, id2 0.5, id3 0.3 -> order 2 (0.5), 3 (0.8), 1 (0.95), 0 (1.0)
    QTest::newRow("0.4") << 0.4 << std::vector<int64_t>{2};
    QTest::newRow("0.5") << 0.5 << std::vector<int64_t>{2};
    QTest::newRow("0.7") << 0.7 << std::vector<int64_t>{2, 3};
    QTest::newRow("0.9") << 0.9 << std::vector<int64_t>{1, 2, 3};
    QTest::newRow("1.0") << 1.0 << std::vector<int64_t>{0, 1, 2, 3};
  }
  void topPKeepsTheSmallestSetReachingP() {
    QFETCH(double, p);
    QFETCH(std::vector<int64_t>, kept);
    SamplingSettings s;
    s.top_p = p;
    QCOMPARE(nonZero(samplingDistribution(logitsOf({0.05, 0.15, 0.5, 0.3}), {}, s)), kept);
  }

  void repetitionPenaltyFollowsHuggingFace() {
    const auto logits = torch::tensor({2.0, -1.0, 0.5}, torch::kFloat64);
    SamplingSettings s;
    s.repetition_penalty = 2.0;
    // Token 0 (positive) is divided, token 1 (negative) multiplied; token 2 was not generated.
    const auto expected = torch::softmax(torch::tensor({1.0, -2.0, 0.5}, torch::kFloat64), 0);
    QVERIFY(torch::allclose(samplingDistribution(logits, {0, 1, 0}, s), expected, 1e-12, 1e-14));
  }

  void badSettingsNameTheSetting() {
    auto message = [](SamplingSettings s) {
      try {
        validateSampling(s);
      } catch (const MixerLabError& e) {
        return QString(e.what());
      }
      return QString();
    };
    SamplingSettings s;
    QVERIFY(message(s).isEmpty());
    s.temperature = 0;
    QVERIFY(message(s).contains("temperature"));
    s = {};
    s.top_p = 1.5;
    QVERIFY(message(s).contains("top_p"));
    s = {};
    s.top_k = -1;
    QVERIFY(message(s).contains("top_k"));
    s = {};
    s.repetition_penalty = 0.5;
    QVERIFY(message(s).contains("repetition_penalty"));
  }
};

QTEST_APPLESS_MAIN(TestSampling)
#include "test_sampling.moc"
