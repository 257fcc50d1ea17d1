// Masked-mixer variant tests (options of arch "masked_mixer"): expanded / multi-head mixing,
// softmax weights (clean and research-compat), in-place masking compat, linear / near-linear
// ablations. Causality, analytic == built parameter counts (spec numbers for expanded),
// safetensors round trips, training steps, validation messages.
#include <torch/torch.h>
#include <QtTest/QtTest>

#include "core/models/mixers/masked_mixer.h"
#include "core/models/mixers/mixer_expanded.h"
#include "core/models/mixers/mixer_head.h"
#include "core/models/model_registry.h"
#include "core/models/safetensors.h"
#include "tests/model_checks.h"
#include "tests/test_support.h"
#include "tests/tiny_model_config.h"

using namespace mixerlab;

namespace {
ModelConfig variant(const nlohmann::json& options, int64_t d = 32, int64_t t = 24, int64_t n = 2, int64_t k = 1) {
  ModelConfig c = testing::tinyModelConfig("masked_mixer", 97, d, n, t, options);
  c.kernel_size = k;
  return c;
}

struct Named {
  const char* name;
  nlohmann::json options;
  int64_t kernel;
};
std::vector<Named> variants() {
  return {
      {"expanded", {{"mixing", "expanded"}}, 1},
      {"expanded e=3 no bias", {{"mixing", "expanded"}, {"expansion", 3}, {"expanded_bias", false}}, 1},
      {"expanded inplace", {{"mixing", "expanded"}, {"mask_mode", "inplace_compat"}}, 1},
      {"multi_head", {{"mixing", "multi_head"}}, 1},
      {"multi_head k=2", {{"mixing", "multi_head"}, {"mixing_heads", 2}}, 2},
      {"multi_head softmax", {{"mixing", "multi_head"}, {"mixing_weights", "softmax"}}, 1},
      {"softmax", {{"mixing_weights", "softmax"}}, 1},
      {"softmax_compat", {{"mixing_weights", "softmax_compat"}}, 1},
      {"inplace k=1", {{"mask_mode", "inplace_compat"}}, 1},
      {"inplace k=3", {{"mask_mode", "inplace_compat"}}, 3},
      {"near-linear", {{"layer_norms", false}}, 1},
      {"linear ff", {{"feed_forward", "linear"}}, 1},
      {"linear mixer relu", {{"feed_forward", "none"}, {"head_activation", "relu"}}, 1},
      {"fully linear", {{"layer_norms", false}, {"feed_forward", "none"}, {"residual", false}}, 1},
  };
}

// Test data: one row per variant, its index in variants() in the column "index".
void addVariantRows() {
  QTest::addColumn<int>("index");
  for (size_t i = 0; i < variants().size(); ++i) QTest::newRow(variants()[i].name) << static_cast<int>(i);
}

// Copies of all parameters, to undo softmax_compat's in-place rewrite between forwards.
std::vector<at::Tensor> snapshot(LanguageModel& m) {
  std::vector<at::Tensor> out;
  for (const auto& p : m.parameters()) out.push_back(p.detach().clone());
  return out;
}
void restore(LanguageModel& m, const std::vector<at::Tensor>& saved) {
  torch::NoGradGuard no_grad;
  auto params = m.parameters();
  for (size_t i = 0; i < params.size(); ++i) params[i].copy_(saved[i]);
}
std::string validationError(const ModelConfig& c) {
  try {
    buildModel(c);
  } catch (const std::exception& e) {
    return e.what();
  }
  return {};
}
}  // namespace

class TestMixerVariants : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() { at::set_num_threads(2); }

  void expandedParameterCountsMatchSpec_data() {
    QTest::addColumn<qlonglong>("d");
    QTest::addColumn<qlonglong>("expected");
    QTest::addColumn<bool>("build");
    // Spec section 1, e=2, V=4096, T=512, N=8.
    QTest::newRow("D=256") << 256LL << 14710784LL << true;
    QTest::newRow("D=512") << 512LL << 29409280LL << false;
    QTest::newRow("D=1024") << 1024LL << 83972096LL << false;
  }
  void expandedParameterCountsMatchSpec() {
    QFETCH(qlonglong, d);
    QFETCH(qlonglong, expected);
    QFETCH(bool, build);
    ModelConfig c = variant({{"mixing", "expanded"}, {"expansion", 2}}, d, 512, 8);
    c.vocab_size = 4096;
    QCOMPARE(estimateCost(c, 1).parameters, expected);
    if (build) QCOMPARE(buildModel(c)->parameterCount(), expected);
  }

  void builtCountMatchesAnalytic() {
    for (const auto& v : variants()) {
      for (bool tied : {false, true}) {
        ModelConfig c = variant(v.options, 48, 20, 3, v.kernel);
        c.vocab_size = 301;
        c.tie_weights = tied;
        QVERIFY2(buildModel(c)->parameterCount() == estimateCost(c, 2).parameters, v.name);
      }
    }
  }

  void defaultOptionsAreTheFlatMixer() {
    // Spelling out every default gives the same tensors and outputs as no options at all.
    nlohmann::json defaults = {
        {"mixing", "flat"},       {"mixing_weights", "masked"}, {"mask_mode", "graph"},      {"layer_norms", true},
        {"feed_forward", "gelu"}, {"residual", true},           {"head_activation", "none"}, {"expansion", 2},
        {"mixing_heads", 4}};
    torch::manual_seed(4);
    auto a = buildModel(variant(nlohmann::json::object()));
    torch::manual_seed(4);
    auto b = buildModel(variant(defaults));
    QCOMPARE(a->exportTensors().size(), b->exportTensors().size());
    auto ids = torch::randint(0, 97, {2, 24}, torch::kLong);
    torch::NoGradGuard no_grad;
    QVERIFY(torch::equal(a->forward(ids), b->forward(ids)));
  }

  void causality_data() { addVariantRows(); }
  void causality() {
    QFETCH(int, index);
    const auto v = variants()[index];
    torch::manual_seed(3);
    ModelConfig c = variant(v.options, 32, 24, 2, v.kernel);
    auto model = buildModel(c);
    model->eval();
    torch::NoGradGuard no_grad;
    const auto saved = snapshot(*model);
    auto run = [&](const at::Tensor& ids) {
      restore(*model, saved);  // softmax_compat rewrites its weights at every forward
      return model->forward(ids);
    };
    auto ids = torch::randint(0, c.vocab_size, {2, 24}, torch::kLong);
    auto base = run(ids);
    for (int64_t t : {0, 5, 17, 22}) {
      auto changed = ids.clone();
      changed.narrow(1, t + 1, 24 - t - 1).copy_(torch::randint(0, c.vocab_size, {2, 24 - t - 1}, torch::kLong));
      auto out = run(changed);
      QVERIFY2(torch::equal(out.narrow(1, 0, t + 1), base.narrow(1, 0, t + 1)),
               qPrintable(QString("%1: outputs at positions <= %2 changed").arg(v.name).arg(t)));
      QVERIFY2(!torch::allclose(out.narrow(1, t + 1, 24 - t - 1), base.narrow(1, t + 1, 24 - t - 1)),
               qPrintable(QString("%1: outputs after %2 should depend on the perturbed tokens").arg(v.name).arg(t)));
    }
    // Shorter inputs give the prefix of a full-length run.
    QVERIFY2(torch::allclose(run(ids.narrow(1, 0, 10)), base.narrow(1, 0, 10), 1e-5, 1e-6), v.name);
  }

  void inplaceCompatGivesMaskedEntriesGradients() {
    for (const char* mode : {"graph", "inplace_compat"}) {
      torch::manual_seed(7);
      ModelConfig c = variant({{"mask_mode", mode}}, 16, 12, 1);
      MaskedMixer model(c);
      auto ids = torch::randint(0, c.vocab_size, {3, 12}, torch::kLong);
      model.loss(model.forward(ids), ids).backward();
      auto conv = model.mixerblocks[0]->as<MixerBlock>()->conv;
      const double upper = conv->weight.grad().select(2, 0).triu(1).abs().sum().item<double>();
      const double lower = conv->weight.grad().select(2, 0).tril().abs().sum().item<double>();
      QVERIFY(lower > 0);
      if (std::string(mode) == "graph") {
        QCOMPARE(upper, 0.0);
      } else {
        QVERIFY2(upper > 0, "in-place compat: masked entries must receive gradients (they enter clipping)");
      }
    }
    // Same weights -> same forward in both modes, even with a non-zero stored upper triangle.
    torch::manual_seed(8);
    MaskedMixer graph(variant({{"mask_mode", "graph"}}, 16, 12, 2));
    torch::manual_seed(8);
    MaskedMixer inplace(variant({{"mask_mode", "inplace_compat"}}, 16, 12, 2));
    {
      torch::NoGradGuard no_grad;
      for (auto* m : {&graph, &inplace}) {
        for (const auto& block : *m->mixerblocks) block->as<MixerBlock>()->conv->weight.add_(1.0);  // unmask
      }
    }
    auto ids = torch::randint(0, 97, {2, 12}, torch::kLong);
    torch::NoGradGuard no_grad;
    QVERIFY(torch::allclose(graph.forward(ids), inplace.forward(ids), 1e-5, 1e-6));
    // The in-place mode rewrote its storage; the graph mode left it alone.
    auto w = [](MaskedMixer& m) { return m.mixerblocks[0]->as<MixerBlock>()->conv->weight.select(2, 0); };
    QCOMPARE(w(inplace).triu(1).abs().max().item<double>(), 0.0);
    QVERIFY(w(graph).triu(1).abs().max().item<double>() > 0);
  }

  void softmaxWeights() {
    // Clean softmax: row i of the effective weight is a distribution over j <= i.
    torch::manual_seed(9);
    MaskedTokenConv conv(6, 1, TokenConvSettings{kernels::TokenMask::kCausal, MixWeights::kSoftmax, false});
    torch::NoGradGuard no_grad;
    conv->bias.zero_();
    auto eye = torch::eye(6).unsqueeze(0);  // x = I: y = W_eff
    auto w = conv->forward(eye).squeeze(0);
    QVERIFY(torch::allclose(w.sum(1), torch::ones(6), 1e-5, 1e-6));
    QCOMPARE(w.triu(1).abs().max().item<double>(), 0.0);
    QVERIFY(w.masked_select(torch::ones({6, 6}).tril().to(torch::kBool)).min().item<double>() > 0);
    // Research-compat softmax: W <- tril(softmax_dim0(tril(W))) stored in place, every forward.
    MaskedTokenConv compat(6, 1, TokenConvSettings{kernels::TokenMask::kCausal, MixWeights::kSoftmaxCompat, false});
    compat->bias.zero_();
    auto before = compat->weight.select(2, 0).clone();
    auto expected = torch::softmax(before.tril(), 0).tril();
    auto y1 = compat->forward(eye).squeeze(0);
    QVERIFY(torch::allclose(compat->weight.select(2, 0), expected, 1e-6, 1e-7));
    QVERIFY(torch::allclose(y1, expected, 1e-5, 1e-6));
    // Column 0 has no masked entries, so it sums to 1 over the output tokens.
    QVERIFY(torch::allclose(expected.select(1, 0).sum(), torch::tensor(1.0f), 1e-5, 1e-6));
    // The last column has T-1 masked zeros that each add exp(0) = 1 to its normaliser.
    const double last = expected[5][5].item<double>();
    QVERIFY(std::abs(last - std::exp(before[5][5].item<double>()) / (5.0 + std::exp(before[5][5].item<double>()))) <
            1e-5);
    // Re-applied to the already-softmaxed weights at the next forward: the weights keep changing.
    compat->forward(eye);
    QVERIFY(!torch::allclose(compat->weight.select(2, 0), expected, 1e-6, 1e-7));
  }

  void expandedDeadChannels() {
    // Intermediate channels >= T never reach the output (conv2's tril mask); channels < T do.
    torch::manual_seed(10);
    ExpandedTokenMix mix(8, 2, true, false);
    auto x = torch::randn({2, 8, 5});
    torch::NoGradGuard no_grad;
    auto base = mix->forward(x);
    mix->conv0->weight.narrow(0, 8, 8).normal_();
    mix->conv0->bias.narrow(0, 8, 8).normal_();
    QVERIFY(torch::equal(mix->forward(x), base));
    mix->conv0->bias.narrow(0, 0, 8).normal_();
    QVERIFY(!torch::allclose(mix->forward(x), base));
    QCOMPARE(mix->conv0->weight.sizes().vec(), (std::vector<int64_t>{16, 8, 1}));
    QCOMPARE(mix->conv2->weight.sizes().vec(), (std::vector<int64_t>{8, 16, 1}));
  }

  void fullyLinearIsHeadOfConvOfEmbedding() {
    // Spec section 6: layer_norms false, feed_forward none, residual false, N=1 -> lm_head(conv(wte[x])).
    torch::manual_seed(12);
    ModelConfig c = variant({{"layer_norms", false}, {"feed_forward", "none"}, {"residual", false}}, 16, 10, 1);
    MaskedMixer model(c);
    QCOMPARE(model.named_parameters().size(), size_t(4));  // wte, conv.weight, conv.bias, lm_head
    auto ids = torch::randint(0, 97, {2, 10}, torch::kLong);
    torch::NoGradGuard no_grad;
    auto conv = model.mixerblocks[0]->as<MixerBlock>()->conv;
    auto e = model.wte->weight.index({ids});
    auto mixed = torch::matmul(conv->weight.select(2, 0).tril(), e) + conv->bias.unsqueeze(-1);
    auto expected = torch::matmul(mixed, model.lm_head->weight.t());
    QVERIFY(torch::allclose(model.forward(ids), expected, 1e-4, 1e-5));
  }

  void safetensorsRoundTrip_data() { addVariantRows(); }
  void safetensorsRoundTrip() {
    QFETCH(int, index);
    const auto v = variants()[index];
    ModelConfig c = variant(v.options, 16, 8, 2, v.kernel);
    torch::manual_seed(1);
    auto a = buildModel(c);
    torch::manual_seed(2);
    auto b = buildModel(c);
    const auto file = testing::makeScratchDir("mixvar") / "model.safetensors";
    saveSafetensors(file, a->exportTensors(), {{"arch", c.arch}});
    auto loaded = loadSafetensors(file);
    const std::string mixing = v.options.value("mixing", "flat");
    if (mixing == "expanded") {
      QCOMPARE(loaded.tensors.at("mixerblocks.1.conv.0.weight").sizes().vec(),
               (std::vector<int64_t>{8 * v.options.value("expansion", 2), 8, 1}));
      QVERIFY(loaded.tensors.count("mixerblocks.0.conv.2.weight"));
      QCOMPARE(loaded.tensors.count("mixerblocks.0.conv.2.bias"), size_t(v.options.value("expanded_bias", true)));
    } else if (mixing == "multi_head") {
      QVERIFY(loaded.tensors.count("mixerblocks.0.mixerhead.proj_head.1.weight"));
      QVERIFY(loaded.tensors.count("mixerblocks.0.mixerhead.convs.1.bias"));
      QVERIFY(loaded.tensors.count("mixerblocks.1.mixerhead.out_proj.weight"));
    } else {
      QVERIFY(loaded.tensors.count("mixerblocks.0.conv.weight"));
    }
    QCOMPARE(loaded.tensors.count("mixerblocks.0.seq_layernorm.weight"), size_t(v.options.value("layer_norms", true)));
    loadIntoModule(*b, loaded, file.string());
    b->afterLoad();
    auto ids = torch::randint(0, c.vocab_size, {2, 8}, torch::kLong);
    torch::NoGradGuard no_grad;
    QVERIFY2(torch::equal(a->forward(ids), b->forward(ids)), v.name);
  }

  void adamwReducesLoss_data() { addVariantRows(); }
  void adamwReducesLoss() {
    QFETCH(int, index);
    const auto v = variants()[index];
    torch::manual_seed(13);
    ModelConfig c = variant(v.options, 32, 16, 2, v.kernel);
    c.vocab_size = 50;
    auto model = buildModel(c);
    torch::optim::AdamW opt(model->parameters(), torch::optim::AdamWOptions(3e-3).weight_decay(0.0));
    auto ids = torch::randint(0, c.vocab_size, {8, 16}, torch::kLong);
    const auto trend = testing::trainOnOneBatch(*model, opt, ids, 8, /*clip_norm=*/1.0);
    QVERIFY2(trend.finiteGradients(),
             qPrintable(QString("%1: gradient norm %2").arg(v.name).arg(trend.bad_gradient_norm)));
    QVERIFY2(trend.last < trend.first,
             qPrintable(QString("%1: %2 -> %3").arg(v.name).arg(trend.first).arg(trend.last)));
  }

  void expandedMatchesConv1dReference() {
    // Forward and gradients against LibTorch's conv1d on the tril-masked weights (this caught
    // garbage weight gradients from at::matmul of a rectangular matrix with a batch in LibTorch 1.13).
    torch::manual_seed(14);
    ExpandedTokenMix mix(8, 2, true, false);
    auto x = torch::randn({3, 8, 5});
    auto target = torch::randn({3, 8, 5});
    auto loss = (mix->forward(x) - target).pow(2).sum();
    loss.backward();
    auto w0 = mix->conv0->weight.detach().clone().requires_grad_(true);
    auto w2 = mix->conv2->weight.detach().clone().requires_grad_(true);
    auto m0 = torch::ones({16, 8}).tril().unsqueeze(-1), m2 = torch::ones({8, 16}).tril().unsqueeze(-1);
    auto h = torch::gelu(torch::conv1d(x, w0 * m0, mix->conv0->bias.detach()));
    auto ref = (torch::conv1d(h, w2 * m2, mix->conv2->bias.detach()) - target).pow(2).sum();
    ref.backward();
    QVERIFY(torch::allclose(loss, ref, 1e-4, 1e-5));
    QVERIFY(torch::allclose(mix->conv0->weight.grad(), w0.grad(), 1e-4, 1e-5));
    QVERIFY(torch::allclose(mix->conv2->weight.grad(), w2.grad(), 1e-4, 1e-5));
  }

  void flatGradientsMatchConv1dReference() {
    // The square token conv's weight gradients (in-graph mask) against conv1d on the masked weight.
    for (int64_t k : {1, 3}) {
      torch::manual_seed(15);
      MaskedTokenConv conv(10, k);
      auto x = torch::randn({3, 10, 7});
      auto target = torch::randn({3, 10, 7});
      (conv->forward(x) - target).pow(2).sum().backward();
      auto w = conv->weight.detach().clone().requires_grad_(true);
      auto mask = torch::ones({10, 10}).tril().unsqueeze(-1);
      namespace F = torch::nn::functional;
      auto y = F::conv1d(x, w * mask, F::Conv1dFuncOptions().bias(conv->bias.detach()).padding(torch::kSame));
      (y - target).pow(2).sum().backward();
      QVERIFY2(torch::allclose(conv->weight.grad(), w.grad(), 1e-4, 1e-5), qPrintable(QString("k=%1").arg(k)));
    }
  }

  void invalidCombinationsNameTheOption() {
    auto expect = [](const ModelConfig& c, const QString& needle) {
      const QString message = QString::fromStdString(validationError(c));
      QVERIFY2(message.contains(needle), qPrintable("expected \"" + needle + "\" in: " + message));
    };
    expect(variant({{"mixing", "expanded"}}, 32, 24, 2, 3), "options.mixing");
    expect(variant({{"mixing", "expanded"}}, 32, 24, 2, 3), "kernel_size");
    expect(variant({{"mixing_weights", "softmax"}}, 32, 24, 2, 2), "options.mixing_weights");
    expect(variant({{"mixing_weights", "softmax_compat"}, {"mask_mode", "inplace_compat"}}), "options.mask_mode");
    expect(variant({{"mixing", "multi_head"}, {"mixing_heads", 5}}), "options.mixing_heads");
    expect(variant({{"mixing", "diagonal"}}), "mixing");
    expect(variant({{"mixng", "flat"}}), "mixng");
    expect(variant({{"expansion", 0}}), "expansion");
    QVERIFY(validationError(variant({{"mixing", "multi_head"}, {"mixing_heads", 4}}, 32, 24, 2, 3)).empty());
  }
};

QTEST_APPLESS_MAIN(TestMixerVariants)
#include "test_mixer_variants.moc"
