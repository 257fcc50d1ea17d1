// Objective tests: multi-token prediction sums its passes in training and reports next-token CE in
// evaluation; the one-step completion model predicts the second half from the first half only.
#include <torch/torch.h>
#include <QtTest/QtTest>

#include "core/models/model_registry.h"
#include "core/models/objectives.h"
#include "core/util/error.h"
#include "tests/tiny_model_config.h"

using namespace mixerlab;

namespace {
ModelConfig small(const std::string& arch, const std::string& objective) {
  ModelConfig c = testing::tinyModelConfig(arch, 40, 16, 4, 12);
  c.n_heads = 2;
  c.objective = parseModelObjective(objective);
  c.mtp_tokens = 3;
  return c;
}
}  // namespace

class TestObjectives : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void multiTokenLossIsSumOfShiftedPasses() {
    torch::manual_seed(1);
    auto model = buildModel(small("masked_mixer", "multi_token"));
    auto* mtp = dynamic_cast<MultiTokenPrediction*>(model.get());
    QVERIFY(mtp != nullptr);
    auto ids = torch::randint(0, 40, {3, 12}, torch::kLong);
    model->train();
    auto logits = model->forward(ids);
    const double train_loss = model->loss(logits, ids).item<double>();
    // Recompute by hand: pass i runs on the argmax of pass i-1 and is scored against labels shifted by 1+i.
    torch::NoGradGuard no_grad;
    auto& base = mtp->base();
    double expected = 0;
    at::Tensor input = ids;
    for (int64_t pass = 0; pass < 3; ++pass) {
      auto l = base.forward(input);
      const int64_t keep = 12 - 1 - pass;
      expected += torch::nn::functional::cross_entropy(l.narrow(1, 0, keep).reshape({-1, 40}),
                                                       ids.narrow(1, 1 + pass, keep).reshape({-1}))
                      .item<double>();
      input = l.argmax(-1);
    }
    QVERIFY2(std::abs(train_loss - expected) < 1e-4, qPrintable(QString("%1 vs %2").arg(train_loss).arg(expected)));
    model->eval();
    const double eval_loss = model->loss(model->forward(ids), ids).item<double>();
    QVERIFY(std::abs(eval_loss - shiftedCrossEntropy(base.forward(ids), ids).item<double>()) < 1e-6);
    QVERIFY(eval_loss < train_loss);  // one pass vs the sum of three
  }

  void multiTokenKeepsTensorNames() {
    auto plain = buildModel(small("masked_mixer", "next_token"));
    auto mtp = buildModel(small("masked_mixer", "multi_token"));
    std::vector<std::string> a, b;
    for (const auto& [name, t] : plain->exportTensors()) a.push_back(name);
    for (const auto& [name, t] : mtp->exportTensors()) b.push_back(name);
    QCOMPARE(a, b);
    QCOMPARE(mtp->parameterCount(), plain->parameterCount());
  }

  void completionUsesOnlyTheFirstHalf_data() {
    QTest::addColumn<QString>("arch");
    QTest::newRow("masked_mixer") << "masked_mixer";
    QTest::newRow("llama") << "llama";
  }
  void completionUsesOnlyTheFirstHalf() {
    QFETCH(QString, arch);
    torch::manual_seed(2);
    auto model = buildModel(small(arch.toStdString(), "one_step_completion"));
    model->eval();
    torch::NoGradGuard no_grad;
    auto ids = torch::randint(0, 40, {2, 12}, torch::kLong);
    auto base = model->forward(ids);
    auto changed = ids.clone();
    changed.narrow(1, 6, 6).copy_(torch::randint(0, 40, {2, 6}, torch::kLong));
    auto out = model->forward(changed);
    QVERIFY2(torch::equal(out.narrow(1, 6, 6), base.narrow(1, 6, 6)), "second-half outputs saw second-half tokens");
    auto first_half_changed = ids.clone();
    first_half_changed.narrow(1, 0, 1).fill_((ids[0][0].item<int64_t>() + 1) % 40);
    QVERIFY(!torch::allclose(model->forward(first_half_changed).narrow(1, 6, 6), base.narrow(1, 6, 6)));
    // Unshifted loss over the second half only.
    QCOMPARE(model->targetCount(ids), int64_t{12});
    auto expected =
        torch::nn::functional::cross_entropy(base.narrow(1, 6, 6).reshape({-1, 40}), ids.narrow(1, 6, 6).reshape({-1}));
    QVERIFY(std::abs(model->loss(base, ids).item<double>() - expected.item<double>()) < 1e-6);
  }

  void objectiveValidation() {
    auto c = small("masked_mixer", "one_step_completion");
    c.n_layers = 3;
    QVERIFY_THROWS_EXCEPTION(std::exception, buildModel(c));
    // An unknown objective never reaches a model: its name is refused, with the names that exist.
    try {
      parseModelObjective("telepathy");
      QFAIL("an unknown objective was accepted");
    } catch (const MixerLabError& e) {
      const std::string message = e.what();
      QVERIFY2(
          message.find("telepathy") != std::string::npos && message.find("one_step_completion") != std::string::npos,
          e.what());
    }
    for (size_t i = 0; i < modelObjectiveNames().size(); ++i) {
      const auto objective = static_cast<ModelObjective>(i);
      QCOMPARE(parseModelObjective(modelObjectiveName(objective)), objective);
    }
    QCOMPARE(modelObjectiveName(ModelObjective::kMultiToken), std::string("multi_token"));
  }
};

QTEST_APPLESS_MAIN(TestObjectives)
#include "test_objectives.moc"
