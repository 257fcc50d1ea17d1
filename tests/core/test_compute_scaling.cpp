// Loss-vs-compute analysis shared by the reproduction report and the workbench: the power-law fit
// recovers known parameters (exactly without noise, within its own standard errors with noise), the
// Pareto frontier keeps only improvements, and runs that differ only in seed are grouped with the
// right mean and spread.
#include <QtTest/QtTest>

#include <cmath>
#include <random>

#include "core/runs/compute_points.h"
#include "core/runs/power_law_fit.h"
#include "core/runs/seed_groups.h"

using namespace mixerlab;

namespace {

std::vector<ComputePoint> syntheticPoints(double a, double b, double c, double noise, int count, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> gauss(0.0, noise);
  std::vector<ComputePoint> points;
  for (int i = 0; i < count; ++i) {
    const double flops = std::pow(10.0, 12.0 + 4.0 * i / (count - 1));  // 1e12 .. 1e16
    points.push_back({flops, a * std::pow(flops, -b) + c + (noise > 0 ? gauss(rng) : 0.0), ""});
  }
  return points;
}

RunConfig runNamed(const std::string& name, uint64_t seed, double learning_rate) {
  RunConfig r;
  r.name = name;
  r.model.d_model = 64;
  r.train.seed = seed;
  r.train.learning_rate = learning_rate;
  return r;
}

}  // namespace

class ComputeScalingTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void fitRecoversExactParameters() {
    const double a = 7962.0, b = 0.3, c = 1.5;  // loss 3.5 at 1e12 FLOPs, 1.5 at infinity
    const PowerLawFit fit = fitPowerLaw(syntheticPoints(a, b, c, 0.0, 25, 1));
    QVERIFY2(fit.ok, fit.problem.c_str());
    QCOMPARE(fit.points, size_t{25});
    QVERIFY2(std::abs(fit.b - b) < 1e-4, qPrintable(QString::number(fit.b)));
    QVERIFY2(std::abs(fit.c - c) < 1e-4, qPrintable(QString::number(fit.c)));
    QVERIFY2(std::abs(fit.a - a) / a < 1e-3, qPrintable(QString::number(fit.a)));
    QVERIFY(fit.rmse < 1e-6);
    QVERIFY(std::abs(fit.predict(1e14) - (a * std::pow(1e14, -b) + c)) < 1e-4);
  }

  void fitWithNoiseStaysWithinItsUncertainty() {
    const double a = 2.0e4, b = 0.35, c = 1.8;
    const PowerLawFit fit = fitPowerLaw(syntheticPoints(a, b, c, 0.004, 40, 7));
    QVERIFY2(fit.ok, fit.problem.c_str());
    QVERIFY(std::isfinite(fit.b_std) && fit.b_std > 0);
    QVERIFY(std::isfinite(fit.c_std) && fit.c_std > 0);
    QVERIFY(std::isfinite(fit.a_std) && fit.a_std > 0);
    // Within 4 standard errors (and close in absolute terms).
    QVERIFY2(std::abs(fit.b - b) < 4 * fit.b_std && std::abs(fit.b - b) < 0.05,
             qPrintable(QString("b %1 +- %2").arg(fit.b).arg(fit.b_std)));
    QVERIFY2(std::abs(fit.c - c) < 4 * fit.c_std && std::abs(fit.c - c) < 0.05,
             qPrintable(QString("c %1 +- %2").arg(fit.c).arg(fit.c_std)));
    QVERIFY2(std::abs(fit.a - a) < 4 * fit.a_std, qPrintable(QString("a %1 +- %2").arg(fit.a).arg(fit.a_std)));
    QVERIFY(fit.rmse > 0.002 && fit.rmse < 0.006);  // the noise's own scale
  }

  void fitRefusesWhatIsNotAPowerLaw() {
    QVERIFY(!fitPowerLaw({{1e12, 3.0, ""}, {1e13, 2.5, ""}}).ok);                   // two points
    QVERIFY(!fitPowerLaw({{1e12, 3.0, ""}, {1e12, 2.9, ""}, {1e12, 2.8, ""}}).ok);  // one compute value
    const PowerLawFit rising = fitPowerLaw(syntheticPoints(-50.0, 0.2, 3.0, 0.0, 10, 1));
    QVERIFY(!rising.ok);
    QVERIFY(rising.problem.find("does not fall") != std::string::npos);
    // Three points, as many as the law's parameters: an exact curve through them is no fit (the
    // Scaling tab once showed rmse 7e-16 and a = 1.8e20 without a word); four are the fewest.
    const PowerLawFit three = fitPowerLaw(syntheticPoints(7962.0, 0.3, 1.5, 0.0, 3, 1));
    QVERIFY(!three.ok);
    QCOMPARE(three.points, size_t{3});
    QVERIFY2(three.problem.find("needs at least 4 frontier points") != std::string::npos &&
                 three.problem.find("got 3") != std::string::npos,
             three.problem.c_str());
    const PowerLawFit four = fitPowerLaw(syntheticPoints(7962.0, 0.3, 1.5, 0.001, 4, 1));
    QVERIFY2(four.ok, four.problem.c_str());
    QVERIFY(std::isfinite(four.a_std) && std::isfinite(four.b_std) && std::isfinite(four.c_std));
    QVERIFY(four.b_std > 0);
  }

  void frontierKeepsOnlyImprovements() {
    const std::vector<ComputePoint> points = {{4e12, 2.6, "b"}, {1e12, 3.0, "a"},  {2e12, 3.1, "b"},
                                              {3e12, 2.7, "a"}, {5e12, 2.65, "a"}, {6e12, 2.4, "b"},
                                              {0, 1.0, "zero"}, {7e12, NAN, "nan"}};
    const auto frontier = paretoFrontier(points);
    QCOMPARE(frontier.size(), size_t{4});
    QCOMPARE(frontier[0].flops, 1e12);
    QCOMPARE(frontier[1].flops, 3e12);
    QCOMPARE(frontier[2].flops, 4e12);
    QCOMPARE(frontier[3].flops, 6e12);
    QCOMPARE(frontier[3].run, std::string("b"));
  }

  // Seed groups put several points at one compute (same budget, other seeds): the frontier keeps one
  // point per compute, the lowest loss, whichever order the points arrive in; the next compute's
  // point stays only when it improves on that lowest loss (a tie at a larger compute does not).
  void frontierKeepsTheLowestLossAtEqualCompute() {
    const std::vector<ComputePoint> points = {{1e12, 3.2, "worse"},  {1e12, 3.0, "best"},     {1e12, 3.1, "mid"},
                                              {2e12, 2.9, "seed1"},  {2e12, 2.95, "seed2"},   {3e12, 2.9, "tie"},
                                              {4e12, 2.5, "better"}, {4e12, 2.5, "same-loss"}};
    const auto frontier = paretoFrontier(points);
    QCOMPARE(frontier.size(), size_t{3});
    QCOMPARE(frontier[0].flops, 1e12);
    QCOMPARE(frontier[0].loss, 3.0);
    QCOMPARE(frontier[0].run, std::string("best"));
    QCOMPARE(frontier[1].flops, 2e12);
    QCOMPARE(frontier[1].loss, 2.9);
    QCOMPARE(frontier[1].run, std::string("seed1"));
    QCOMPARE(frontier[2].flops, 4e12);
    QCOMPARE(frontier[2].run, std::string("better"));  // a stable sort keeps the first of equal points
  }

  void evalPointsUseTokensTimesFlopsPerToken() {
    MetricsRecord train_only;
    train_only.tokens = 100;
    train_only.train_loss = 3.0;
    MetricsRecord eval;
    eval.tokens = 2048;
    eval.eval_loss = 2.5;
    const auto points = evalLossByCompute({train_only, eval}, 1.5e6, "r");
    QCOMPARE(points.size(), size_t{1});
    QCOMPARE(points[0].flops, 2048 * 1.5e6);
    QCOMPARE(points[0].loss, 2.5);
  }

  void spreadMatchesHandComputedValues() {
    const Spread s = spreadOf({1.0, 2.0, 3.0, 4.0});
    QCOMPARE(s.count, size_t{4});
    QCOMPARE(s.mean, 2.5);
    QVERIFY(std::abs(s.std - std::sqrt(5.0 / 3.0)) < 1e-12);
    QCOMPARE(s.min, 1.0);
    QCOMPARE(s.max, 4.0);
    QCOMPARE(spreadOf({2.0}).std, 0.0);
  }

  void runsThatDifferOnlyInSeedAreGrouped() {
    const std::vector<RunConfig> runs = {runNamed("mixer-seed1", 1, 5e-4), runNamed("llama-s1", 1, 2e-4),
                                         runNamed("mixer-seed2", 2, 5e-4), runNamed("mixer-seed3", 3, 5e-4),
                                         runNamed("llama-s2", 2, 2e-4),    runNamed("other", 1, 1e-3)};
    const auto groups = groupBySeed(runs);
    QCOMPARE(groups.size(), size_t{3});
    QCOMPARE(groups[0].label, std::string("mixer"));
    QCOMPARE(groups[0].members, (std::vector<size_t>{0, 2, 3}));
    QCOMPARE(groups[1].label, std::string("llama"));
    QCOMPARE(groups[1].members, (std::vector<size_t>{1, 4}));
    QCOMPARE(groups[2].label, std::string("other"));
    // How a seed ran is not what it trains: a 2-rank run (1 thread of each rank, on the CPU) and a
    // single process on 8 threads of a GPU box stay one experiment; a training setting still splits.
    std::vector<RunConfig> ranks = {runNamed("mixer-seed1", 1, 5e-4), runNamed("mixer-seed2", 2, 5e-4),
                                    runNamed("mixer-seed3", 3, 5e-4)};
    ranks[0].train.threads = 1;
    ranks[0].train.device = "cpu";
    ranks[1].train.threads = 8;
    ranks[1].train.device = "cuda:1";
    QCOMPARE(groupBySeed(ranks).size(), size_t{1});
    ranks[2].train.warmup_steps = 7;
    QCOMPARE(groupBySeed(ranks).size(), size_t{2});
    QCOMPARE(executionSettingKeys(), (std::vector<std::string>{"train.device", "train.threads"}));
    QVERIFY(isExecutionSetting("train.threads") && !isExecutionSetting("train.seed"));
  }

  void bandAveragesOverTheCommonRange() {
    const Curve a = {{0, 4.0}, {10, 3.0}, {20, 2.0}, {30, 1.0}};
    const Curve b = {{0, 6.0}, {20, 4.0}};  // 5.0 at x=10 by interpolation
    const CurveBand band = bandOf({a, b});
    QCOMPARE(band.x, (std::vector<double>{0, 10, 20}));
    QCOMPARE(band.mean, (std::vector<double>{5.0, 4.0, 3.0}));
    QCOMPARE(band.low, (std::vector<double>{4.0, 3.0, 2.0}));
    QCOMPARE(band.high, (std::vector<double>{6.0, 5.0, 4.0}));
  }

  // Curves that start and end at different x: the band covers only the range every curve has
  // reached (the latest start to the earliest end), never a clamped value of a curve that has not
  // started yet or has already ended. The x values are the first curve's inside that range.
  void bandStartsWhereEveryCurveHasStarted() {
    const Curve early = {{0, 9.0}, {10, 5.0}, {20, 4.0}, {30, 3.0}, {40, 2.0}};
    const Curve late = {{10, 7.0}, {30, 5.0}, {50, 1.0}};  // 6.0 at x=20, 3.0 at x=40 by interpolation
    const CurveBand band = bandOf({early, late});
    QCOMPARE(band.x, (std::vector<double>{10, 20, 30, 40}));
    QCOMPARE(band.mean, (std::vector<double>{6.0, 5.0, 4.0, 2.5}));
    QCOMPARE(band.low, (std::vector<double>{5.0, 4.0, 3.0, 2.0}));
    QCOMPARE(band.high, (std::vector<double>{7.0, 6.0, 5.0, 3.0}));
    // The other order: the late curve's x values, cut at the early curve's end (40).
    const CurveBand swapped = bandOf({late, early});
    QCOMPARE(swapped.x, (std::vector<double>{10, 30}));
    QCOMPARE(swapped.mean, (std::vector<double>{6.0, 4.0}));
    QCOMPARE(swapped.low, (std::vector<double>{5.0, 3.0}));
    QCOMPARE(swapped.high, (std::vector<double>{7.0, 5.0}));
    // Curves with no common range give an empty band.
    QVERIFY(bandOf({Curve{{0, 1.0}, {5, 1.0}}, Curve{{6, 1.0}, {9, 1.0}}}).x.empty());
    QVERIFY(bandOf({early, Curve{}}).x.empty());
  }
};

QTEST_APPLESS_MAIN(ComputeScalingTest)
#include "test_compute_scaling.moc"
