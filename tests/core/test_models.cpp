// Model tests: parameter counts equal the research's counts, causality of both families (and, with
// random full weights, of every causal family and token-mixing variant), the mixer's token-mixing
// weights stay lower-triangular through training, and k>1 padding matches kSame.
#include <torch/torch.h>
#include <QtTest/QtTest>

#include <map>

#include "tests/model_checks.h"

#include "core/models/mixers/masked_mixer.h"
#include "core/models/model_registry.h"
#include "core/reproduce/reproduce_plan.h"
#include "tests/test_support.h"
#include "tests/tiny_model_config.h"

using namespace mixerlab;

namespace {
ModelConfig mixerConfig(int64_t d, int64_t t, int64_t n, int64_t k = 1) {
  ModelConfig c = testing::tinyModelConfig("masked_mixer", 4096, d, n, t);
  c.kernel_size = k;
  return c;
}
ModelConfig llamaConfig(int64_t d, int64_t n, int64_t h, int64_t t = 512) {
  ModelConfig c = testing::tinyModelConfig("llama", 4096, d, n, t);
  c.n_heads = h;
  return c;
}
}  // namespace

class TestModels : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() { at::set_num_threads(2); }

  void parameterCounts_data() {
    QTest::addColumn<QString>("arch");
    QTest::addColumn<qlonglong>("d");
    QTest::addColumn<qlonglong>("k");
    QTest::addColumn<qlonglong>("heads");
    QTest::addColumn<qlonglong>("expected");
    QTest::addColumn<bool>("build");  // also build the module and count its tensors
    // Spec section 1 (V=4096, T=512, N=8) and section 3 (Llama N=8, H=32).
    QTest::newRow("mixer D=256") << "masked_mixer" << 256LL << 1LL << 0LL << 8411136LL << true;
    QTest::newRow("mixer D=512") << "masked_mixer" << 512LL << 1LL << 0LL << 23109632LL << true;
    QTest::newRow("mixer D=1024") << "masked_mixer" << 1024LL << 1LL << 0LL << 77672448LL << false;
    QTest::newRow("mixer D=2048") << "masked_mixer" << 2048LL << 1LL << 0LL << 287461376LL << false;
    QTest::newRow("mixer D=1024 k=4") << "masked_mixer" << 1024LL << 4LL << 0LL << 83963904LL << false;
    QTest::newRow("llama D=128") << "llama" << 128LL << 1LL << 32LL << 3147904LL << true;
    QTest::newRow("llama D=256") << "llama" << 256LL << 1LL << 32LL << 10490112LL << true;
    QTest::newRow("llama D=512") << "llama" << 512LL << 1LL << 32LL << 37757440LL << true;
    QTest::newRow("llama D=1024") << "llama" << 1024LL << 1LL << 32LL << 142623744LL << false;
  }
  void parameterCounts() {
    QFETCH(QString, arch);
    QFETCH(qlonglong, d);
    QFETCH(qlonglong, k);
    QFETCH(qlonglong, heads);
    QFETCH(qlonglong, expected);
    QFETCH(bool, build);
    ModelConfig c = arch == "llama" ? llamaConfig(d, 8, heads) : mixerConfig(d, 512, 8, k);
    QCOMPARE(estimateCost(c, 1).parameters, expected);
    if (build) QCOMPARE(buildModel(c)->parameterCount(), expected);
  }

  void builtCountMatchesAnalyticForOddShapes() {
    for (auto c : {mixerConfig(48, 20, 3, 3), llamaConfig(48, 3, 6, 20)}) {
      c.vocab_size = 301;
      QCOMPARE(buildModel(c)->parameterCount(), estimateCost(c, 2).parameters);
    }
  }

  void causality_data() {
    QTest::addColumn<QString>("arch");
    QTest::addColumn<qlonglong>("kernel");
    QTest::newRow("masked_mixer k=1") << "masked_mixer" << 1LL;
    QTest::newRow("masked_mixer k=3") << "masked_mixer" << 3LL;
    QTest::newRow("llama") << "llama" << 1LL;
  }
  void causality() {
    QFETCH(QString, arch);
    QFETCH(qlonglong, kernel);
    torch::manual_seed(3);
    ModelConfig c = arch == "llama" ? llamaConfig(32, 2, 4, 24) : mixerConfig(32, 24, 2, kernel);
    c.vocab_size = 97;
    auto model = buildModel(c);
    const QString problem = testing::causalityProblem(*model, 24);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
  }

  // Every causally masked family and token-mixing variant, all parameters random (the entries
  // above a token-mixing weight's diagonal too, which fresh models store as zeros and so hide a
  // leaking mask): changing the tokens after t must not change any logit at positions <= t.
  void causalityWithRandomWeights_data() {
    QTest::addColumn<QString>("arch");
    QTest::addColumn<qlonglong>("kernel");
    QTest::addColumn<QString>("options");  // JSON
    QTest::newRow("masked_mixer flat") << "masked_mixer" << 1LL << "{}";
    QTest::newRow("masked_mixer flat k=3") << "masked_mixer" << 3LL << "{}";
    QTest::newRow("masked_mixer flat inplace_compat") << "masked_mixer" << 1LL << R"({"mask_mode": "inplace_compat"})";
    QTest::newRow("masked_mixer flat k=3 inplace_compat")
        << "masked_mixer" << 3LL << R"({"mask_mode": "inplace_compat"})";
    QTest::newRow("masked_mixer flat softmax") << "masked_mixer" << 1LL << R"({"mixing_weights": "softmax"})";
    QTest::newRow("masked_mixer flat softmax_compat")
        << "masked_mixer" << 1LL << R"({"mixing_weights": "softmax_compat"})";
    QTest::newRow("masked_mixer expanded") << "masked_mixer" << 1LL << R"({"mixing": "expanded"})";
    QTest::newRow("masked_mixer expanded inplace_compat")
        << "masked_mixer" << 1LL << R"({"mixing": "expanded", "mask_mode": "inplace_compat"})";
    QTest::newRow("masked_mixer multi_head") << "masked_mixer" << 1LL << R"({"mixing": "multi_head"})";
    QTest::newRow("masked_mixer multi_head k=3") << "masked_mixer" << 3LL << R"({"mixing": "multi_head"})";
    QTest::newRow("masked_mixer multi_head inplace_compat")
        << "masked_mixer" << 1LL << R"({"mixing": "multi_head", "mask_mode": "inplace_compat"})";
    QTest::newRow("masked_mixer multi_head softmax")
        << "masked_mixer" << 1LL << R"({"mixing": "multi_head", "mixing_weights": "softmax"})";
    QTest::newRow("masked_mixer multi_head softmax_compat")
        << "masked_mixer" << 1LL << R"({"mixing": "multi_head", "mixing_weights": "softmax_compat"})";
    QTest::newRow("masked_mixer multi_head_compat")
        << "masked_mixer" << 1LL << R"({"mixing": "multi_head", "multi_head_compat": true})";
    QTest::newRow("transfixer after_attention") << "transfixer" << 1LL << R"({"conv_placement": "after_attention"})";
    QTest::newRow("transfixer after_attention k=3")
        << "transfixer" << 1LL << R"({"conv_placement": "after_attention", "conv_kernel_size": 3})";
    QTest::newRow("transfixer after_attention inplace_compat")
        << "transfixer" << 1LL << R"({"conv_placement": "after_attention", "mask_mode": "inplace_compat"})";
    QTest::newRow("transfixer parallel") << "transfixer" << 1LL << R"({"conv_placement": "parallel"})";
    QTest::newRow("transfixer before_attention") << "transfixer" << 1LL << R"({"conv_placement": "before_attention"})";
    QTest::newRow("transfixer before_attention k=3 inplace_compat")
        << "transfixer" << 1LL
        << R"({"conv_placement": "before_attention", "conv_kernel_size": 3, "mask_mode": "inplace_compat"})";
    QTest::newRow("llama") << "llama" << 1LL << "{}";
    QTest::newRow("gpt") << "gpt" << 1LL << "{}";
    QTest::newRow("mamba") << "mamba" << 1LL << "{}";
  }
  void causalityWithRandomWeights() {
    QFETCH(QString, arch);
    QFETCH(qlonglong, kernel);
    QFETCH(QString, options);
    torch::manual_seed(7);
    const int64_t context = 16;
    ModelConfig c =
        testing::tinyModelConfig(arch.toStdString(), 97, 32, 2, context, nlohmann::json::parse(options.toStdString()));
    c.kernel_size = kernel;  // n_heads keeps its default 4 (head dimension 8)
    auto model = buildModel(c);
    const QString problem = testing::causalityProblemWithRandomWeights(*model, context);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
  }

  void mixerWeightsStayLowerTriangularThroughTraining() {
    torch::manual_seed(5);
    ModelConfig c = mixerConfig(16, 12, 2, 2);
    c.vocab_size = 50;
    MaskedMixer model(c);
    torch::optim::AdamW opt(model.parameters(), torch::optim::AdamWOptions(1e-2).weight_decay(0.1));
    auto upperTriangleMax = [&]() {
      double worst = 0;
      for (const auto& block : *model.mixerblocks) {
        auto w = block->as<MixerBlock>()->conv->weight;  // [T, T, k]
        for (int64_t tap = 0; tap < w.size(2); ++tap) {
          worst = std::max(worst, w.select(2, tap).triu(1).abs().max().item<double>());
        }
      }
      return worst;
    };
    QCOMPARE(upperTriangleMax(), 0.0);
    for (int step = 0; step < 10; ++step) {
      auto ids = torch::randint(0, c.vocab_size, {4, 12}, torch::kLong);
      opt.zero_grad();
      model.loss(model.forward(ids), ids).backward();
      opt.step();
      QCOMPARE(upperTriangleMax(), 0.0);
    }
    for (const auto& [name, tensor] : model.exportTensors()) {
      if (name.find(".conv.weight") == std::string::npos) continue;
      QCOMPARE(tensor.sizes().vec(), (std::vector<int64_t>{12, 12, 2}));
      for (int64_t tap = 0; tap < 2; ++tap) QCOMPARE(tensor.select(2, tap).triu(1).abs().max().item<double>(), 0.0);
      // The lower triangle is trained, not zero.
      QVERIFY(tensor.select(2, 0).tril().abs().sum().item<double>() > 0);
    }
  }

  void kernelPaddingMatchesLibTorchSame_data() {
    QTest::addColumn<qlonglong>("kernel");
    for (qlonglong k : {2LL, 3LL, 4LL, 5LL}) QTest::newRow(qPrintable(QString("k=%1").arg(k))) << k;
  }
  void kernelPaddingMatchesLibTorchSame() {
    QFETCH(qlonglong, kernel);
    torch::manual_seed(11);
    MaskedTokenConv conv(10, kernel);
    torch::nn::Conv1d reference(torch::nn::Conv1dOptions(10, 10, kernel).padding(torch::kSame));
    {
      torch::NoGradGuard no_grad;
      reference->weight.copy_(conv->maskedWeight());
      reference->bias.copy_(conv->bias);
    }
    auto x = torch::randn({3, 10, 7});
    QVERIFY(torch::allclose(conv->forward(x), reference->forward(x), 1e-5, 1e-6));
  }

  // The inversion claim varies the embedding scale: options.embedding_init_std draws the token
  // embedding from N(0, std); without it each family keeps its research init (mixer N(0,1), Llama N(0,0.02)).
  void embeddingInitStdSetsTheEmbeddingScale_data() {
    QTest::addColumn<QString>("arch");
    QTest::addColumn<double>("option_std");
    QTest::addColumn<double>("expected_std");
    QTest::newRow("mixer default") << "masked_mixer" << 0.0 << 1.0;
    QTest::newRow("mixer 0.02") << "masked_mixer" << 0.02 << 0.02;
    QTest::newRow("llama default") << "llama" << 0.0 << 0.02;
    QTest::newRow("llama 1.0") << "llama" << 1.0 << 1.0;
  }
  void embeddingInitStdSetsTheEmbeddingScale() {
    QFETCH(QString, arch);
    QFETCH(double, option_std);
    QFETCH(double, expected_std);
    nlohmann::json options = nlohmann::json::object();
    if (option_std > 0) options["embedding_init_std"] = option_std;
    ModelConfig c = testing::tinyModelConfig(arch.toStdString(), 512, 64, 1, 8, options);
    c.n_heads = 4;
    const double measured = buildModel(c)->tokenEmbeddingMatrix().std().item<double>();
    QVERIFY2(std::abs(measured - expected_std) < 0.05 * expected_std,
             qPrintable(QString("std %1, expected %2").arg(measured).arg(expected_std)));
  }

  void embeddingInitStdIsRefusedWhereItIsNotApplied() {
    ModelConfig c = testing::tinyModelConfig("mixer_autoencoder", 64, 16, 1, 8, {{"embedding_init_std", 0.5}});
    try {
      buildModel(c);
      QFAIL("expected an error");
    } catch (const std::exception& e) {
      QVERIFY2(QString(e.what()).contains("embedding_init_std"), e.what());
    }
    c = testing::tinyModelConfig("llama", 64, 16, 1, 8, {{"embedding_init_std", -1.0}});
    c.n_heads = 2;
    QVERIFY_THROWS_EXCEPTION(std::exception, buildModel(c));
  }

  void unknownArchitectureNamesTheChoices() {
    ModelConfig c;
    c.arch = "mamba9";
    try {
      buildModel(c);
      QFAIL("expected an error");
    } catch (const std::exception& e) {
      QVERIFY(QString(e.what()).contains("mamba9"));
      QVERIFY(QString(e.what()).contains("masked_mixer"));
    }
  }

  // Each side of the research's comparisons is represented by exactly one registry family, and
  // the reproduction's planned runs train that family on their side.
  void researchArmsAreRegistryFamilies() {
    QCOMPARE(researchArmArchitecture(ResearchArm::kMixer), std::string("masked_mixer"));
    QCOMPARE(researchArmArchitecture(ResearchArm::kTransformer), std::string("llama"));
    QCOMPARE(researchArmArchitecture(ResearchArm::kGpt), std::string("gpt"));
    QCOMPARE(researchArmArchitecture(ResearchArm::kTransfixer), std::string("transfixer"));
    QCOMPARE(researchArmArchitecture(ResearchArm::kMixerAutoencoder), std::string("mixer_autoencoder"));
    QCOMPARE(researchArmArchitecture(ResearchArm::kTransformerAutoencoder), std::string("transformer_autoencoder"));
    QCOMPARE(researchArmArchitecture(ResearchArm::kBidirectionalMixer), std::string("bidirectional_mixer"));
    QCOMPARE(researchArmArchitecture(ResearchArm::kBidirectionalTransformer), std::string("bidirectional_transformer"));
    for (const ResearchArm arm : kResearchArms) {
      int families = 0;
      for (const auto& family : architectures()) families += family.research_arm == arm ? 1 : 0;
      QCOMPARE(families, 1);
      QVERIFY(researchArmFromName(researchArmName(arm)) == arm);
    }
    QCOMPARE(researchArmName(ResearchArm::kMixer), std::string("mixer"));
    QCOMPARE(researchArmName(ResearchArm::kTransformer), std::string("transformer"));
    QCOMPARE(researchArmName(ResearchArm::kBidirectionalTransformer), std::string("bidirectional_transformer"));
    try {
      researchArmFromName("hybrid");
      QFAIL("expected an error");
    } catch (const std::exception& e) {
      QVERIFY2(QString(e.what()).contains("\"hybrid\""), e.what());
      QVERIFY2(QString(e.what()).contains("mixer, transformer, gpt"), e.what());
    }
    for (const ReproduceScale scale : kReproduceScales) {
      const ReproducePlan plan = planReproduction(scale, testing::sourceDir() / "projects");
      std::map<ResearchArm, int> per_arm;
      for (const PlannedRun& run : plan.runs) {
        QCOMPARE(run.model.at("arch").get<std::string>(), researchArmArchitecture(run.arm));
        // A run named "...-seedN" trains with seed N.
        if (const auto at = run.name.rfind("-seed"); at != std::string::npos) {
          const uint64_t named = std::stoull(run.name.substr(at + 5));
          QCOMPARE(run.seed, named);
          QCOMPARE(run.train.at("seed").get<uint64_t>(), named);
        }
        ++per_arm[run.arm];
      }
      for (const ResearchArm arm : kResearchArms) {  // every arm is in every scale's suite
        QVERIFY2(per_arm[arm] > 0, (scaleName(scale) + " lacks " + researchArmName(arm)).c_str());
      }
    }
  }
};

QTEST_APPLESS_MAIN(TestModels)
#include "test_models.moc"
