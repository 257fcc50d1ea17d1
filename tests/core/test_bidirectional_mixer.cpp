// Bidirectional mixer tests (docs/architectures.md): output i never sees token i+1 (for every i) while it
// does see tokens <= i and >= i+2; a naive variant that combines the streams after every block
// leaks token i+1 (the blog's collapsed-loss bug); parameter counts, research tensor names,
// safetensors round trip and training steps.
#include <torch/torch.h>
#include <QtTest/QtTest>

#include "core/models/mixers/bidirectional_mixer.h"
#include "core/models/model_registry.h"
#include "core/models/safetensors.h"
#include "tests/model_checks.h"
#include "tests/test_support.h"
#include "tests/tiny_model_config.h"

using namespace mixerlab;

namespace {
ModelConfig bimixer(int64_t d = 32, int64_t t = 16, int64_t n = 2, int64_t k = 1) {
  ModelConfig c = testing::tinyModelConfig("bidirectional_mixer", 97, d, n, t);
  c.kernel_size = k;
  return c;
}

// The blog's naive version, for the leak test only: the streams are summed after every block and
// both continue from the sum, so token i+1 reaches output i in two hops (reverse conv, then forward conv).
at::Tensor naiveForward(BidirectionalMixer& m, const at::Tensor& ids) {
  auto x = m.wte->forward(ids);
  auto y = x;
  for (const auto& block : *m.mixerblocks) {
    std::tie(x, y) = block->as<DoubleMixerBlock>()->forward(x, y);
    x = x + y;
    y = x;
  }
  return m.lm_head->forward(x + y);
}

// Positions (other than i) whose token changes output i when perturbed.
std::vector<int64_t> influencers(const std::function<at::Tensor(const at::Tensor&)>& run, const at::Tensor& ids,
                                 int64_t i) {
  torch::NoGradGuard no_grad;
  auto base = run(ids).select(1, i);
  std::vector<int64_t> out;
  for (int64_t j = 0; j < ids.size(1); ++j) {
    auto changed = ids.clone();
    changed.select(1, j).add_(1).remainder_(97);
    if (!torch::equal(run(changed).select(1, i), base)) out.push_back(j);
  }
  return out;
}
}  // namespace

class TestBidirectionalMixer : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() { at::set_num_threads(2); }

  void nextTokenNeverReachesItsPrediction_data() {
    QTest::addColumn<qlonglong>("kernel");
    QTest::newRow("k=1") << 1LL;
    QTest::newRow("k=3") << 3LL;
  }
  void nextTokenNeverReachesItsPrediction() {
    QFETCH(qlonglong, kernel);
    torch::manual_seed(3);
    const int64_t T = 12;
    BidirectionalMixer model(bimixer(24, T, 3, kernel));
    model.eval();
    auto ids = torch::randint(0, 97, {2, T}, torch::kLong);
    auto run = [&](const at::Tensor& t) { return model.forward(t); };
    for (int64_t i = 0; i < T; ++i) {
      const auto seen = influencers(run, ids, i);
      std::vector<int64_t> expected;
      for (int64_t j = 0; j < T; ++j) {
        if (j != i + 1) expected.push_back(j);  // <= i from the forward stream, >= i+2 from the reverse one
      }
      QVERIFY2(seen == expected,
               qPrintable(QString("output %1: token %2 must be the only one it cannot see").arg(i).arg(i + 1)));
    }
  }

  void naiveCombiningEveryBlockLeaks() {
    torch::manual_seed(4);
    const int64_t T = 12;
    BidirectionalMixer model(bimixer(24, T, 2));
    model.eval();
    auto ids = torch::randint(0, 97, {2, T}, torch::kLong);
    auto naive = [&](const at::Tensor& t) { return naiveForward(model, t); };
    int leaks = 0;
    for (int64_t i = 0; i + 1 < T; ++i) {
      const auto seen = influencers(naive, ids, i);
      if (std::find(seen.begin(), seen.end(), i + 1) != seen.end()) ++leaks;
    }
    QVERIFY2(leaks == T - 1, qPrintable(QString("naive combining leaked at %1 of %2 positions").arg(leaks).arg(T - 1)));
  }

  void parameterCountsAndNames() {
    for (auto c : {bimixer(48, 20, 3, 1), bimixer(48, 20, 3, 2), bimixer(256, 512, 8, 1)}) {
      c.vocab_size = 301;
      for (bool tied : {false, true}) {
        c.tie_weights = tied;
        QCOMPARE(buildModel(c)->parameterCount(), estimateCost(c, 2).parameters);
      }
    }
    // D=256, T=512, N=8, V=4096: per block 3 LNs (1536) + 2 convs (2 * 262656) + FF (525568).
    ModelConfig c = bimixer(256, 512, 8);
    c.vocab_size = 4096;
    QCOMPARE(estimateCost(c, 1).parameters, 4096LL * 256 * 2 + 8LL * (1536 + 2 * 262656 + 525568));
    auto tensors = buildModel(bimixer())->exportTensors();
    for (const char* name :
         {"wte.weight", "lm_head.weight", "mixerblocks.1.seq_layernormf.weight", "mixerblocks.1.seq_layernormr.bias",
          "mixerblocks.0.convf.weight", "mixerblocks.0.convr.bias", "mixerblocks.0.patch_layernorm.weight",
          "mixerblocks.0.patch_ff.0.weight", "mixerblocks.0.patch_ff.2.bias"}) {
      QVERIFY2(tensors.count(name), name);
    }
    // Exported conv weights carry their masks: convf lower-triangular, convr only j >= i+2.
    auto f = tensors.at("mixerblocks.0.convf.weight").select(2, 0);
    auto r = tensors.at("mixerblocks.0.convr.weight").select(2, 0);
    QCOMPARE(f.triu(1).abs().max().item<double>(), 0.0);
    QCOMPARE(r.tril(1).abs().max().item<double>(), 0.0);
    QVERIFY(r.triu(2).abs().min().item<double>() >= 0 && r.triu(2).abs().sum().item<double>() > 0);
  }

  void optionsAreRejected() {
    ModelConfig c = bimixer();
    c.options = {{"mixing", "expanded"}};
    try {
      buildModel(c);
      QFAIL("expected an error");
    } catch (const std::exception& e) {
      QVERIFY(QString(e.what()).contains("mixing"));
    }
  }

  void safetensorsRoundTrip() {
    for (bool tied : {false, true}) {
      ModelConfig c = bimixer(16, 8, 2);
      c.tie_weights = tied;
      torch::manual_seed(1);
      auto a = buildModel(c);
      torch::manual_seed(2);
      auto b = buildModel(c);
      const auto file = testing::makeScratchDir("bimix") / "model.safetensors";
      saveSafetensors(file, a->exportTensors(), {{"arch", c.arch}});
      auto loaded = loadSafetensors(file);
      if (tied) loaded.tensors.erase("lm_head.weight");
      loadIntoModule(*b, loaded, file.string());
      b->afterLoad();
      auto ids = torch::randint(0, c.vocab_size, {2, 8}, torch::kLong);
      torch::NoGradGuard no_grad;
      QVERIFY(torch::equal(a->forward(ids), b->forward(ids)));
    }
  }

  void adamwReducesLossAndMasksHold() {
    torch::manual_seed(13);
    ModelConfig c = bimixer(32, 16, 2);
    c.vocab_size = 50;
    auto model = std::dynamic_pointer_cast<BidirectionalMixer>(buildModel(c));
    QVERIFY(model);
    torch::optim::AdamW opt(model->parameters(), torch::optim::AdamWOptions(3e-3).weight_decay(0.1));
    auto ids = torch::randint(0, c.vocab_size, {8, 16}, torch::kLong);
    const auto trend = testing::trainOnOneBatch(*model, opt, ids, 8);
    QVERIFY2(trend.last < trend.first, qPrintable(QString("%1 -> %2").arg(trend.first).arg(trend.last)));
    // In-graph masks: the stored masked entries stay exactly zero through AdamW with weight decay.
    auto* block = model->mixerblocks[0]->as<DoubleMixerBlock>();
    QCOMPARE(block->convf->weight.select(2, 0).triu(1).abs().max().item<double>(), 0.0);
    QCOMPARE(block->convr->weight.select(2, 0).tril(1).abs().max().item<double>(), 0.0);
  }
};

QTEST_APPLESS_MAIN(TestBidirectionalMixer)
#include "test_bidirectional_mixer.moc"
