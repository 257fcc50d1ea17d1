// Mamba family tests: causality, analytic == built parameter counts (and a hand-computed count),
// identical outputs for every scan mode, option validation, HF tensor names, a safetensors round
// trip, and that a few AdamW steps reduce the loss.
#include <torch/torch.h>
#include <QtTest/QtTest>

#include "tests/model_checks.h"

#include "core/models/model_registry.h"
#include "core/models/safetensors.h"
#include "core/models/state_space/mamba.h"
#include "tests/test_support.h"
#include "tests/tiny_model_config.h"

using namespace mixerlab;

namespace {
ModelConfig mambaConfig(int64_t d, int64_t n, int64_t t, nlohmann::json options = nlohmann::json::object()) {
  return testing::tinyModelConfig("mamba", 97, d, n, t, std::move(options));
}
}  // namespace

class TestMamba : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() { at::set_num_threads(2); }

  void causality_data() {
    QTest::addColumn<QString>("scan");
    for (const char* s : {"fused", "parallel", "chunked", "sequential"}) QTest::newRow(s) << QString(s);
  }
  void causality() {
    QFETCH(QString, scan);
    torch::manual_seed(3);
    auto c = mambaConfig(32, 2, 24, {{"scan", scan.toStdString()}, {"chunk_size", 5}, {"d_state", 8}});
    auto model = buildModel(c);
    const QString problem = testing::causalityProblem(*model, 24);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
  }

  void scanModesGiveTheSameModel() {
    torch::manual_seed(9);
    auto ids = torch::randint(0, 97, {2, 37}, torch::kLong);
    at::Tensor reference;
    for (const char* scan : {"sequential", "parallel", "chunked", "fused"}) {
      torch::manual_seed(1);  // same weights
      auto model = buildModel(mambaConfig(24, 2, 40, {{"scan", scan}, {"chunk_size", 8}}));
      auto logits = model->forward(ids);
      if (!reference.defined()) {
        reference = logits.detach();
      } else {
        QVERIFY2(torch::allclose(logits, reference, 1e-4, 1e-5), scan);
      }
    }
  }

  void parameterCounts() {
    // Hand count for D=256, N layers=8, V=4096, defaults (E=512, d_state 16, d_conv 4, dt_rank 16):
    // block = D + 2ED + (E*4 + E) + E(R + 2N) + (RE + E) + EN + E + ED
    //       = 256 + 262144 + 2560 + 24576 + 8704 + 8192 + 512 + 131072 = 438016;
    // total = 8 * 438016 + V*D (embeddings) + D (norm_f) + V*D (lm_head) = 5601536.
    auto c = mambaConfig(256, 8, 64);
    c.vocab_size = 4096;
    QCOMPARE(estimateCost(c, 1).parameters, 5601536LL);
    QCOMPARE(buildModel(c)->parameterCount(), 5601536LL);
    // mamba-130m's shape (D=768, 24 layers, V=50280, tied head): 129,135,360 by the same formula.
    auto big = mambaConfig(768, 24, 64);
    big.vocab_size = 50280;
    big.tie_weights = true;
    QCOMPARE(estimateCost(big, 1).parameters, 129135360LL);
  }

  void builtCountMatchesAnalyticForOddShapes() {
    std::vector<ModelConfig> configs = {
        mambaConfig(48, 3, 20, {{"d_state", 5}, {"d_conv", 3}, {"expand", 3}, {"dt_rank", 7}}),
        mambaConfig(33, 1, 20, {{"d_conv", 1}}),  // dt_rank = ceil(33/16) = 3
    };
    configs.push_back(configs[0]);
    configs.back().tie_weights = true;
    for (const auto& c : configs) QCOMPARE(buildModel(c)->parameterCount(), estimateCost(c, 2).parameters);
  }

  void huggingFaceTensorNames() {
    auto tensors = buildModel(mambaConfig(32, 2, 16, {{"d_state", 4}}))->exportTensors();
    const int64_t E = 64, N = 4, R = 2;
    std::map<std::string, std::vector<int64_t>> expected = {
        {"backbone.embeddings.weight", {97, 32}},
        {"backbone.layers.1.norm.weight", {32}},
        {"backbone.layers.1.mixer.in_proj.weight", {2 * E, 32}},
        {"backbone.layers.1.mixer.conv1d.weight", {E, 1, 4}},
        {"backbone.layers.1.mixer.conv1d.bias", {E}},
        {"backbone.layers.1.mixer.x_proj.weight", {R + 2 * N, E}},
        {"backbone.layers.1.mixer.dt_proj.weight", {E, R}},
        {"backbone.layers.1.mixer.dt_proj.bias", {E}},
        {"backbone.layers.1.mixer.A_log", {E, N}},
        {"backbone.layers.1.mixer.D", {E}},
        {"backbone.layers.1.mixer.out_proj.weight", {32, E}},
        {"backbone.norm_f.weight", {32}},
        {"lm_head.weight", {97, 32}},
    };
    for (const auto& [name, shape] : expected) {
      QVERIFY2(tensors.count(name), name.c_str());
      QCOMPARE(tensors[name].sizes().vec(), shape);
    }
    QCOMPARE(tensors.size(), size_t(2 + 2 * 10 + 1));
    // S4D-real init of A and the dt bias range: softplus(bias) in [1e-3, 1e-1].
    auto a_log = tensors["backbone.layers.1.mixer.A_log"];
    QVERIFY(torch::allclose(a_log[5], torch::log(torch::arange(1, N + 1, torch::kFloat))));
    auto dt = torch::nn::functional::softplus(tensors["backbone.layers.1.mixer.dt_proj.bias"]);
    QVERIFY(dt.min().item<double>() >= 0.999e-3 && dt.max().item<double>() <= 1.001e-1);
  }

  void invalidOptionsAreRejected() {
    for (const auto& options :
         {nlohmann::json{{"scan", "blelloch"}}, nlohmann::json{{"d_state", 0}}, nlohmann::json{{"dstate", 16}}}) {
      try {
        buildModel(mambaConfig(32, 1, 16, options));
        QFAIL(qPrintable(QString("accepted ") + options.dump().c_str()));
      } catch (const std::exception& e) {
        QVERIFY2(QString(e.what()).contains("options."), e.what());
      }
    }
  }

  void safetensorsRoundTrip() {
    auto dir = testing::makeScratchDir("mamba");
    auto c = mambaConfig(24, 2, 16, {{"d_state", 6}});
    torch::manual_seed(1);
    auto a = buildModel(c);
    torch::manual_seed(2);
    auto b = buildModel(c);
    auto ids = torch::randint(0, c.vocab_size, {2, 16}, torch::kLong);
    QVERIFY(!torch::allclose(a->forward(ids), b->forward(ids)));
    saveSafetensors(dir / "m.safetensors", a->exportTensors());
    loadIntoModule(*b, loadSafetensors(dir / "m.safetensors"), "m.safetensors");
    QVERIFY(torch::equal(a->forward(ids), b->forward(ids)));
    std::filesystem::remove_all(dir);
  }

  void adamWReducesLoss() {
    torch::manual_seed(5);
    auto c = mambaConfig(32, 2, 16, {{"d_state", 8}});
    c.vocab_size = 50;
    auto model = buildModel(c);
    torch::optim::AdamW opt(model->parameters(), torch::optim::AdamWOptions(3e-3).weight_decay(0.1));
    auto ids = torch::randint(0, c.vocab_size, {8, 16}, torch::kLong);
    const auto trend = testing::trainOnOneBatch(*model, opt, ids, 30);
    QVERIFY2(trend.last < trend.first - 0.5, qPrintable(QString("loss %1 -> %2").arg(trend.first).arg(trend.last)));
  }
};

QTEST_APPLESS_MAIN(TestMamba)
#include "test_mamba.moc"
