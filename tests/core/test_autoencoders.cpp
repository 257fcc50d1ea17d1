// Autoencoder tests: parameter counts, the unshifted reconstruction loss, the embedding is the
// encoder's last-position state (every input token reaches every output through it), bottleneck,
// safetensors round trip and a few training steps that reduce the loss.
#include <torch/torch.h>
#include <QtTest/QtTest>

#include <set>

#include "core/models/composite/autoencoders.h"
#include "core/models/model_registry.h"
#include "core/models/safetensors.h"
#include "core/train/checkpoint.h"
#include "tests/model_checks.h"
#include "tests/test_support.h"
#include "tests/tiny_model_config.h"

using namespace mixerlab;

namespace {
ModelConfig config(const QString& arch, int64_t bottleneck = 0) {
  ModelConfig c = testing::tinyModelConfig(arch.toStdString(), 50, 16, 2, 10);
  c.n_heads = 2;
  if (bottleneck) c.options = {{"bottleneck", bottleneck}};
  return c;
}
}  // namespace

class TestAutoencoders : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void families_data() {
    QTest::addColumn<QString>("arch");
    QTest::addColumn<qlonglong>("bottleneck");
    QTest::newRow("mixer") << "mixer_autoencoder" << 0LL;
    QTest::newRow("mixer bottleneck 4") << "mixer_autoencoder" << 4LL;
    QTest::newRow("transformer") << "transformer_autoencoder" << 0LL;
    QTest::newRow("transformer bottleneck 2") << "transformer_autoencoder" << 2LL;
  }
  void families() {
    QFETCH(QString, arch);
    QFETCH(qlonglong, bottleneck);
    torch::manual_seed(4);
    const ModelConfig c = config(arch, bottleneck);
    auto model = buildModel(c);
    QCOMPARE(model->parameterCount(), estimateCost(c, 1).parameters);
    auto* ae = dynamic_cast<AutoencoderBase*>(model.get());
    QVERIFY(ae != nullptr);
    const auto names = model->exportTensors();
    QVERIFY(names.count("wte.weight") && names.count("lm_head.weight"));
    QCOMPARE(names.count("down.weight") > 0, bottleneck > 1);  // the research names: down / up
    QCOMPARE(names.count("up.weight") > 0, bottleneck > 1);

    auto ids = torch::randint(0, 50, {3, 10}, torch::kLong);
    {
      torch::NoGradGuard no_grad;
      model->eval();
      auto logits = model->forward(ids);
      QCOMPARE(logits.sizes().vec(), (std::vector<int64_t>{3, 10, 50}));
      // Unshifted: the loss scores output t against token t, over all positions.
      auto expected = torch::nn::functional::cross_entropy(logits.reshape({-1, 50}), ids.reshape({-1}));
      QVERIFY(std::abs(model->loss(logits, ids).item<double>() - expected.item<double>()) < 1e-6);
      QCOMPARE(model->targetCount(ids), int64_t{30});
      // The first token reaches the last output only through the repeated embedding.
      auto changed = ids.clone();
      changed[0][0] = (ids[0][0].item<int64_t>() + 1) % 50;
      QVERIFY(!torch::allclose(model->forward(changed)[0][9], logits[0][9]));
      QCOMPARE(ae->embed(ids).sizes().vec(), (std::vector<int64_t>{3, 16}));
    }
    // Round trip through safetensors.
    const auto file = testing::makeScratchDir("ae") / "ae.safetensors";
    saveSafetensors(file, model->exportTensors());
    torch::manual_seed(99);
    auto other = buildModel(c);
    loadModelTensors(*other, loadSafetensors(file), file.string());
    other->eval();
    {
      torch::NoGradGuard no_grad;
      QVERIFY(torch::equal(other->forward(ids), model->forward(ids)));
    }
    // Training reduces the reconstruction loss.
    model->train();
    torch::optim::AdamW opt(model->parameters(), torch::optim::AdamWOptions(3e-3));
    const auto trend = testing::trainOnOneBatch(*model, opt, ids, 40);
    QVERIFY2(trend.last < trend.first - 0.5, qPrintable(QString("%1 -> %2").arg(trend.first).arg(trend.last)));
  }

  void dropoutOptionActsOnlyInTraining_data() {
    QTest::addColumn<QString>("arch");
    QTest::addColumn<QString>("key");
    QTest::newRow("mixer ff_dropout") << "mixer_autoencoder"
                                      << "ff_dropout";
    QTest::newRow("transformer dropout") << "transformer_autoencoder"
                                         << "dropout";
  }
  void dropoutOptionActsOnlyInTraining() {
    QFETCH(QString, arch);
    QFETCH(QString, key);
    ModelConfig c = config(arch);
    c.options = {{key.toStdString(), 0.3}};
    auto model = buildModel(c);
    auto ids = torch::randint(0, 50, {2, 10}, torch::kLong);
    torch::NoGradGuard no_grad;
    model->eval();
    QVERIFY(torch::equal(model->forward(ids), model->forward(ids)));
    model->train();
    QVERIFY(!torch::equal(model->forward(ids), model->forward(ids)));
    // Tensor names: the transformer's are unchanged; the paper-era dropout mixer autoencoder's
    // feed-forward was Sequential(Linear, Dropout, GELU, Linear), so its second Linear is patch_ff.3.
    ModelConfig plain = config(arch);
    std::set<std::string> a, b;
    for (const auto& [name, t] : model->exportTensors()) a.insert(name);
    for (const auto& [exported, t] : buildModel(plain)->exportTensors()) {
      std::string name = exported;
      if (const size_t at = name.find(".patch_ff.2."); at != std::string::npos && arch == "mixer_autoencoder") {
        name.replace(at, 12, ".patch_ff.3.");
      }
      b.insert(name);
    }
    QCOMPARE(a, b);
  }

  void badBottleneckIsRejected() {
    ModelConfig c = config("mixer_autoencoder", 3);  // 16 is not divisible by 3
    try {
      buildModel(c);
      QFAIL("expected an error");
    } catch (const std::exception& e) {
      QVERIFY2(QString(e.what()).contains("options.bottleneck"), e.what());
    }
  }
};

QTEST_APPLESS_MAIN(TestAutoencoders)
#include "test_autoencoders.moc"
