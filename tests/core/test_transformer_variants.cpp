// Tests of the transformer families added beside Llama: "gpt" (HF OpenAIGPT baseline), "transfixer"
// (Llama + masked token conv, three placements) and "bidirectional_transformer". Causality, exact
// parameter counts, safetensors round trips, a few AdamW steps, and the bidirectional model's
// "token t never sees itself" property; a gpt run with dropout resumes exactly.
#include <torch/torch.h>
#include <QtTest/QtTest>

#include "tests/model_checks.h"

#include "core/config/project_config.h"
#include "core/models/model_registry.h"
#include "core/models/safetensors.h"
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
