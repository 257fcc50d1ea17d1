// Tests of the transformer families added beside Llama: "gpt" (HF OpenAIGPT baseline), "transfixer"
// (Llama + masked token conv, three placements) and "bidirectional_transformer". Causality, exact
// parameter counts, safetensors round trips, a few AdamW steps, and the bidirectional model's
// "token t never sees itself" property; a gpt run with dropout resumes exactly. The attention switch
// (model.attention: sdpa or eager) of every family that reads it: causal attention against a hand
// computation, eager and fused models equal, and run.json recording what ran.
#include <torch/torch.h>
#include <torch/version.h>
#include <QtTest/QtTest>

#include <cmath>
#include <fstream>

#include "tests/model_checks.h"

#include "core/config/project_config.h"
#include "core/models/model_registry.h"
#include "core/models/safetensors.h"
#include "core/models/transformers/causal_attention.h"
#include "core/models/transformers/gpt_transformer.h"
#include "core/runs/metrics_log.h"
#include "core/train/checkpoint.h"
#include "core/train/trainer.h"
#include "tests/test_support.h"
#include "tests/tiny_model_config.h"
#include "tests/training_fixture.h"

using namespace mixerlab;
namespace fs = std::filesystem;

namespace {
ModelConfig smallConfig(const std::string& arch, nlohmann::json options = nlohmann::json::object()) {
  ModelConfig c = testing::tinyModelConfig(arch, 97, 32, 2, 24, std::move(options));
  c.n_heads = 4;
  return c;
}
ModelConfig variant(const QString& name) {
  if (name == "gpt") return smallConfig("gpt");
  if (name == "gpt no dropout") return smallConfig("gpt", {{"dropout", 0.0}});
  if (name == "transfixer") return smallConfig("transfixer");
  if (name == "transfixer k=2") return smallConfig("transfixer", {{"conv_kernel_size", 2}});
  if (name == "transfixer parallel") return smallConfig("transfixer", {{"conv_placement", "parallel"}});
  if (name == "transfixer before")
    return smallConfig("transfixer", {{"conv_placement", "before_attention"}, {"conv_kernel_size", 3}});
  return smallConfig("bidirectional_transformer");
}
void addVariants(bool with_bidirectional) {
  QTest::addColumn<QString>("name");
  for (const char* n : {"gpt", "transfixer", "transfixer k=2", "transfixer parallel", "transfixer before"})
    QTest::newRow(n) << QString(n);
  if (with_bidirectional) QTest::newRow("bidirectional") << QString("bidirectional");
}
}  // namespace

class TestTransformerVariants : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() { at::set_num_threads(2); }

  void gptParameterCountMatchesHandCount() {
    // HF OpenAIGPT, V=4096, n_positions=512, D=512, N=8, MLP 4D:
    //   tokens_embed 4096*512 = 2,097,152; positions_embed 512*512 = 262,144
    //   per block: c_attn 512*1536 + 1536 = 787,968; attn.c_proj 512*512 + 512 = 262,656;
    //              ln_1 2*512 = 1,024; c_fc 512*2048 + 2048 = 1,050,624; mlp.c_proj 2048*512 + 512 = 1,049,088;
    //              ln_2 1,024  -> 3,152,384; x8 = 25,219,072
    //   head tied (0)  -> total 2,097,152 + 262,144 + 25,219,072 = 27,578,368
    ModelConfig c = testing::tinyModelConfig("gpt", 4096, 512, 8, 512);
    c.n_heads = 4;
    QCOMPARE(estimateCost(c, 1).parameters, int64_t{27578368});
    QCOMPARE(buildModel(c)->parameterCount(), int64_t{27578368});
  }

  void transfixerCountIsLlamaPlusConvs() {
    // Spec Llama D=512, N=8 (37,757,440; H does not change the count) + 8 x (512*512 + 512) conv.
    ModelConfig c = testing::tinyModelConfig("transfixer", 4096, 512, 8, 512);
    c.n_heads = 4;
    QCOMPARE(estimateCost(c, 1).parameters, int64_t{37757440 + 8 * (512 * 512 + 512)});
    c.arch = "bidirectional_transformer";  // two 8-layer stacks, no final norm: 2*(37,757,440 - 2*V*D - D) - 512 + 2VD
    QCOMPARE(estimateCost(c, 1).parameters, int64_t{2 * (37757440 - 2 * 4096 * 512 - 512) + 2 * 4096 * 512});
  }

  void builtCountsMatchAnalytic_data() { addVariants(true); }
  void builtCountsMatchAnalytic() {
    QFETCH(QString, name);
    ModelConfig c = variant(name);
    c.vocab_size = 301;
    c.context_length = 20;
    c.d_model = 48;
    c.n_heads = 6;
    c.n_layers = 3;
    QCOMPARE(buildModel(c)->parameterCount(), estimateCost(c, 2).parameters);
  }

  void gptUsesHuggingFaceLayout() {
    auto model = buildModel(smallConfig("gpt"));
    auto tensors = model->exportTensors();
    QCOMPARE(tensors.at("transformer.h.0.attn.c_attn.weight").sizes().vec(), (std::vector<int64_t>{32, 96}));
    QCOMPARE(tensors.at("transformer.h.1.mlp.c_fc.weight").sizes().vec(), (std::vector<int64_t>{32, 128}));
    QCOMPARE(tensors.at("transformer.h.1.mlp.c_proj.weight").sizes().vec(), (std::vector<int64_t>{128, 32}));
    QCOMPARE(tensors.at("transformer.positions_embed.weight").sizes().vec(), (std::vector<int64_t>{24, 32}));
    QVERIFY(tensors.count("transformer.h.1.ln_2.bias") == 1);
    QVERIFY(torch::equal(tensors.at("lm_head.weight"), tensors.at("transformer.tokens_embed.weight")));
    // Post-LN: every block output is a LayerNorm output (weight 1, bias 0 at init): mean 0, std 1.
    model->eval();
    torch::NoGradGuard no_grad;
    auto h = model->hiddenStates(torch::randint(0, 97, {2, 24}, torch::kLong));
    QVERIFY(h.mean(-1).abs().max().item<double>() < 1e-4);
    QVERIFY((h.var(-1, /*unbiased=*/false) - 1).abs().max().item<double>() < 1e-2);
  }

  void gptDropoutOnlyInTraining() {
    torch::manual_seed(1);
    auto model = buildModel(smallConfig("gpt"));
    auto ids = torch::randint(0, 97, {2, 24}, torch::kLong);
    torch::NoGradGuard no_grad;
    model->train();
    QVERIFY(!torch::allclose(model->forward(ids), model->forward(ids)));
    model->eval();
    QVERIFY(torch::equal(model->forward(ids), model->forward(ids)));
    auto plain = buildModel(smallConfig("gpt", {{"dropout", 0.0}}));
    plain->train();
    QVERIFY(torch::equal(plain->forward(ids), plain->forward(ids)));
  }

  void optionsAreValidated() {
    for (auto c :
         {smallConfig("gpt", {{"dropot", 0.1}}), smallConfig("gpt", {{"dropout", 1.5}}),
          smallConfig("transfixer", {{"conv_placement", "sideways"}}),
          smallConfig("transfixer", {{"conv_kernel_size", 0}}), smallConfig("bidirectional_transformer", {{"x", 1}})}) {
      QVERIFY_THROWS_EXCEPTION(std::exception, buildModel(c));
    }
  }

  void causality_data() { addVariants(false); }
  void causality() {
    QFETCH(QString, name);
    torch::manual_seed(3);
    ModelConfig c = variant(name);
    auto model = buildModel(c);
    const QString problem = testing::causalityProblem(*model, 24);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
  }

  void bidirectionalNeverSeesItsOwnToken() {
    torch::manual_seed(4);
    ModelConfig c = variant("bidirectional");
    auto model = buildModel(c);
    model->eval();
    torch::NoGradGuard no_grad;
    const int64_t L = 24;
    auto ids = torch::randint(0, c.vocab_size, {2, L}, torch::kLong);
    auto base = model->forward(ids);
    for (int64_t t = 0; t < L; ++t) {
      auto own = ids.clone();
      own.select(1, t).copy_((ids.select(1, t) + 1 + torch::randint(0, c.vocab_size - 1, {2}, torch::kLong)) %
                             c.vocab_size);
      auto out = model->forward(own);
      QVERIFY2(torch::equal(out.select(1, t), base.select(1, t)),
               qPrintable(QString("token %1 reached itself").arg(t)));
      // ... but it does reach its neighbours' predictions.
      if (t > 0) QVERIFY(!torch::allclose(out.select(1, t - 1), base.select(1, t - 1)));
      if (t + 1 < L) QVERIFY(!torch::allclose(out.select(1, t + 1), base.select(1, t + 1)));
    }
    // Tokens before and after t both influence position t (t = 10): change only 0..8, then only 12..23.
    for (auto [from, count] : {std::pair<int64_t, int64_t>{0, 9}, {12, 12}}) {
      auto changed = ids.clone();
      changed.narrow(1, from, count).copy_((ids.narrow(1, from, count) + 1) % c.vocab_size);
      QVERIFY(!torch::allclose(model->forward(changed).select(1, 10), base.select(1, 10)));
    }
    // Unshifted loss: position t is scored against token t; all non-ignored labels count.
    auto labels = ids.clone();
    labels.index_put_({0, 3}, -100);
    auto expected =
        torch::nn::functional::cross_entropy(base.reshape({-1, c.vocab_size}), labels.reshape({-1}),
                                             torch::nn::functional::CrossEntropyFuncOptions().ignore_index(-100));
    QVERIFY(torch::allclose(model->loss(base, labels), expected));
    QCOMPARE(model->targetCount(labels), int64_t{2 * L - 1});
  }

  void safetensorsRoundTrip_data() { addVariants(true); }
  void safetensorsRoundTrip() {
    QFETCH(QString, name);
    const ModelConfig c = variant(name);
    torch::manual_seed(5);
    auto a = buildModel(c);
    {  // Train a step so the conv's stored upper triangle is non-trivial state to re-mask.
      torch::optim::AdamW opt(a->parameters(), torch::optim::AdamWOptions(1e-2));
      auto ids = torch::randint(0, c.vocab_size, {2, 24}, torch::kLong);
      a->loss(a->forward(ids), ids).backward();
      opt.step();
    }
    const fs::path file = testing::makeScratchDir("variants-st") / "model.safetensors";
    saveSafetensors(file, a->exportTensors());
    torch::manual_seed(99);
    auto b = buildModel(c);
    loadModelTensors(*b, loadSafetensors(file), file.string());
    a->eval();
    b->eval();
    torch::NoGradGuard no_grad;
    auto ids = torch::randint(0, c.vocab_size, {2, 24}, torch::kLong);
    QVERIFY(torch::equal(a->forward(ids), b->forward(ids)));
  }

  void adamwReducesLoss_data() { addVariants(true); }
  void adamwReducesLoss() {
    QFETCH(QString, name);
    const ModelConfig c = variant(name);
    torch::manual_seed(6);
    auto model = buildModel(c);
    model->train();
    torch::optim::AdamW opt(model->parameters(), torch::optim::AdamWOptions(3e-3));
    auto ids = torch::randint(0, c.vocab_size, {4, 24}, torch::kLong);
    const auto trend = testing::trainOnOneBatch(*model, opt, ids, 12);
    QVERIFY2(trend.last < trend.first - 0.3, qPrintable(QString("%1 -> %2").arg(trend.first).arg(trend.last)));
  }

  void causalAttentionMatchesHandComputation() {
    // One head, three positions, head_dim 2, in double: weights_ij = softmax_j<=i(q_i.k_j / sqrt(2)).
    auto q = torch::tensor({1.0, 0.0, 0.5, -1.0, 2.0, 1.0}, torch::kDouble).view({1, 1, 3, 2});
    auto k = torch::tensor({0.0, 1.0, 1.0, 1.0, -1.0, 0.5}, torch::kDouble).view({1, 1, 3, 2});
    auto v = torch::tensor({1.0, 2.0, -3.0, 0.0, 4.0, 8.0}, torch::kDouble).view({1, 1, 3, 2});
    const double qk[3][3] = {{0.0, 1.0, -1.0}, {-1.0, -0.5, -1.0}, {1.0, 3.0, -1.5}};  // q_i . k_j by hand
    const double values[3][2] = {{1, 2}, {-3, 0}, {4, 8}};
    std::vector<double> expected;
    for (int i = 0; i < 3; ++i) {
      double total = 0, out[2] = {0, 0};
      for (int j = 0; j <= i; ++j) total += std::exp(qk[i][j] / std::sqrt(2.0));
      for (int j = 0; j <= i; ++j) {
        const double w = std::exp(qk[i][j] / std::sqrt(2.0)) / total;
        out[0] += w * values[j][0];
        out[1] += w * values[j][1];
      }
      expected.insert(expected.end(), {out[0], out[1]});
    }
    const auto want = torch::tensor(expected, torch::kDouble).view({1, 1, 3, 2});
    for (const AttentionImpl impl : {AttentionImpl::kEager, AttentionImpl::kSdpa}) {
      const auto got = causalAttention(q, k, v, impl);
      QVERIFY2(torch::allclose(got, want, 0, 1e-12),
               qPrintable(QString::fromStdString(attentionImplName(impl)) + ": " +
                          QString::number((got - want).abs().max().item<double>())));
    }
  }

  void fusedRunsOnlyWhereLibTorchHasIt() {
    QCOMPARE(attentionImplRun(AttentionImpl::kEager), AttentionImpl::kEager);
    QCOMPARE(attentionImplRun(AttentionImpl::kSdpa),
             TORCH_VERSION_MAJOR >= 2 ? AttentionImpl::kSdpa : AttentionImpl::kEager);
  }

  void attentionSettingRoundTrips() {
    ModelConfig c = smallConfig("llama");
    c.attention = AttentionImpl::kEager;
    QCOMPARE(c.toJson().at("attention").get<std::string>(), std::string("eager"));
    QCOMPARE(ModelConfig::fromJson(c.toJson()).attention, AttentionImpl::kEager);
    QCOMPARE(ModelConfig::fromJson(smallConfig("llama").toJson()).attention, AttentionImpl::kSdpa);
    nlohmann::json bad = c.toJson();
    bad["attention"] = "flash";
    const std::string error = testing::errorOf([&] { ModelConfig::fromJson(bad); });
    QVERIFY2(error.find("attention") != std::string::npos && error.find("eager") != std::string::npos, error.c_str());
  }

  // Every family that reads model.attention (from the registry): the eager model, given the fused
  // model's weights, computes the same logits to 1e-5 of their scale.
  void eagerEqualsFused_data() {
    QTest::addColumn<QString>("arch");
    for (const auto& a : architectures()) {
      if (familyReadsModelKey(a.name, "attention")) QTest::newRow(a.name.c_str()) << QString::fromStdString(a.name);
    }
  }
  void eagerEqualsFused() {
    QFETCH(QString, arch);
    ModelConfig fused_config = smallConfig(arch.toStdString());
    ModelConfig eager_config = fused_config;
    eager_config.attention = AttentionImpl::kEager;
    torch::manual_seed(7);
    auto fused = buildModel(fused_config);
    testing::randomizeAllParameters(*fused, 0.3);
    auto eager = buildModel(eager_config);
    torch::NoGradGuard no_grad;
    const auto fused_parameters = fused->named_parameters();
    for (auto& p : eager->named_parameters()) p.value().copy_(fused_parameters[p.key()]);
    fused->eval();
    eager->eval();
    const auto ids = torch::randint(0, fused_config.vocab_size, {2, 24}, torch::kLong);
    const auto a = fused->forward(ids), b = eager->forward(ids);
    const double scale = a.abs().max().item<double>();
    QVERIFY(scale > 0);
    const double diff = (a - b).abs().max().item<double>();
    QVERIFY2(diff <= 1e-5 * scale, qPrintable(QString("max |fused - eager| %1 at scale %2").arg(diff).arg(scale)));
  }

  void runJsonRecordsTheAttentionThatRan() {
    const fs::path dir = testing::makeScratchDir("variants-attention");
    auto project_json = nlohmann::json::parse(std::ifstream(testing::writeTinyProject(dir, R"(, "max_steps": 2)")));
    project_json["runs"][1]["model"]["attention"] = "eager";
    project_json["runs"].push_back({{"name", "llama-fused"}, {"model", {{"arch", "llama"}, {"n_heads", 4}}}});
    testing::writeText(dir / "project.json", project_json.dump(2));
    const ProjectConfig project = loadProject(dir / "project.json");
    QCOMPARE(testing::trainRunsToTheEnd(project, dir, {"llama", "llama-fused", "mixer"}), QString());
    const auto runJson = [&](const char* name) {
      return nlohmann::json::parse(std::ifstream(dir / "runs" / name / "run.json"));
    };
    const auto eager = runJson("llama"), fused = runJson("llama-fused"), mixer = runJson("mixer");
    QCOMPARE(eager.at("model").at("attention").get<std::string>(), std::string("eager"));
    QCOMPARE(eager.at("environment").at("attention_ran").get<std::string>(), std::string("eager"));
    QCOMPARE(fused.at("model").at("attention").get<std::string>(), std::string("sdpa"));
    QCOMPARE(fused.at("environment").at("attention_ran").get<std::string>(),
             std::string(TORCH_VERSION_MAJOR >= 2 ? "sdpa" : "eager"));
    QVERIFY(!mixer.at("environment").contains("attention_ran"));
  }

  void gptWithDropoutResumesExactly();
};

namespace {
TrainOutcome trainGpt(const ProjectConfig& project, const fs::path& dir, bool resume, int64_t stop_after_step = 0) {
  return testing::trainTinyRun(project, project.run("gpt"), dir, resume, stop_after_step);
}
}  // namespace

void TestTransformerVariants::gptWithDropoutResumesExactly() {
  const fs::path dir = testing::makeScratchDir("variants-train");
  testing::writeText(dir / "project.json", "{" + testing::demoCorpusJson() + R"(,
    "tokenizer": {"vocab_size": 512},
    "defaults": {
      "model": {"d_model": 32, "n_layers": 2, "context_length": 32},
      "train": {"batch_size": 4, "learning_rate": 0.003, "warmup_steps": 3, "max_steps": 12, "schedule_steps": 12,
                "eval_every": 4, "eval_batches": 2, "log_every": 1, "checkpoint_every": 4, "batch_mode": "packed",
                "device": "cpu", "threads": 2}
    },
    "runs": [{"name": "gpt", "model": {"arch": "gpt", "n_heads": 4, "options": {"dropout": 0.1}}}]
  })");
  const ProjectConfig project = loadProject(dir / "project.json");
  QCOMPARE(trainGpt(project, dir / "whole", false).state, RunState::Finished);
  QCOMPARE(trainGpt(project, dir / "split", false, 6).state, RunState::Stopped);
  QCOMPARE(trainGpt(project, dir / "split", true).state, RunState::Finished);
  const auto a = readMetrics(dir / "whole" / "metrics.jsonl");
  const auto b = readMetrics(dir / "split" / "metrics.jsonl");
  QCOMPARE(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    QCOMPARE(b[i].train_loss.has_value(), a[i].train_loss.has_value());
    if (a[i].train_loss) QVERIFY2(std::abs(*a[i].train_loss - *b[i].train_loss) < 1e-6, qPrintable(QString::number(i)));
    if (a[i].eval_loss) QVERIFY(std::abs(*a[i].eval_loss - *b[i].eval_loss) < 1e-6);
  }
  QVERIFY2(*a.back().eval_loss < *a.front().eval_loss - 0.2,
           qPrintable(QString("eval %1 -> %2").arg(*a.front().eval_loss).arg(*a.back().eval_loss)));
}

QTEST_APPLESS_MAIN(TestTransformerVariants)
#include "test_transformer_variants.moc"
