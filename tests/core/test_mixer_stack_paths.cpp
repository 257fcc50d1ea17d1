// The flat mixer's three block-stack paths (core/models/mixers/mixer_stack_path.h) compute one
// function: batch-major modules, token-major blocks, and token-major with the residual adds fused
// into the LayerNorms. Logits, hidden states, per-layer outputs and every parameter's gradient agree
// in fp64 for the option variants each path takes; variants a path cannot take fall back to a
// simpler one (checked by name), and so does a model with a layer hook.
#include <torch/torch.h>
#include <QtTest/QtTest>

#include "core/models/mixers/masked_mixer.h"
#include "core/models/model_registry.h"
#include "core/train/mixed_precision.h"
#include "tests/tiny_model_config.h"

using namespace mixerlab;

namespace {

struct Variant {
  const char* name;
  nlohmann::json options;
  int64_t kernel;
  MixerStackPath widest;  // the path the model takes when "fused" is asked for
};

std::vector<Variant> variants() {
  return {
      {"flat", nlohmann::json::object(), 1, MixerStackPath::kFused},
      {"softmax", {{"mixing_weights", "softmax"}}, 1, MixerStackPath::kFused},
      {"softmax_compat", {{"mixing_weights", "softmax_compat"}}, 1, MixerStackPath::kFused},
      {"inplace", {{"mask_mode", "inplace_compat"}}, 1, MixerStackPath::kFused},
      {"linear ff", {{"feed_forward", "linear"}}, 1, MixerStackPath::kFused},
      {"ff dropout 0", {{"ff_dropout", 0.0}}, 1, MixerStackPath::kFused},
      {"near-linear", {{"layer_norms", false}}, 1, MixerStackPath::kTokenMajor},
      {"no ff, relu head", {{"feed_forward", "none"}, {"head_activation", "relu"}}, 1, MixerStackPath::kTokenMajor},
      // Each condition of the fused path alone: without residuals (norms and feed-forward kept) the
      // fused adds would be wrong.
      {"no residual", {{"residual", false}}, 1, MixerStackPath::kTokenMajor},
      {"fully linear",
       {{"layer_norms", false}, {"feed_forward", "none"}, {"residual", false}},
       1,
       MixerStackPath::kTokenMajor},
      {"k=3", nlohmann::json::object(), 3, MixerStackPath::kModules},
      {"expanded", {{"mixing", "expanded"}}, 1, MixerStackPath::kModules},
      {"multi_head", {{"mixing", "multi_head"}}, 1, MixerStackPath::kModules},
  };
}

std::shared_ptr<MaskedMixer> buildMixer(const Variant& v) {
  ModelConfig c = testing::tinyModelConfig("masked_mixer", 53, 12, 3, 10, v.options);
  c.kernel_size = v.kernel;
  auto model = std::dynamic_pointer_cast<MaskedMixer>(buildModel(c));
  model->to(at::kDouble);
  return model;
}

// Logits, hidden states, the first block's output and every gradient of a weighted loss, after
// restoring the parameters (softmax_compat and the in-place mask rewrite them during forward).
struct Outputs {
  std::vector<at::Tensor> tensors;
  std::vector<std::string> names;
};
Outputs runOnce(MaskedMixer& model, const std::vector<at::Tensor>& start, const at::Tensor& ids) {
  {
    torch::NoGradGuard no_grad;
    auto params = model.parameters();
    for (size_t i = 0; i < params.size(); ++i) params[i].copy_(start[i]);
  }
  model.zero_grad();
  Outputs out;
  const at::Tensor logits = model.forward(ids);
  const auto weights = at::linspace(-1, 2, logits.numel(), logits.options()).view(logits.sizes());
  (logits * logits * weights).sum().backward();
  out.tensors.push_back(logits.detach());
  out.names.push_back("logits");
  {
    torch::NoGradGuard no_grad;
    out.tensors.push_back(model.hiddenStates(ids));
    out.names.push_back("hidden states");
    out.tensors.push_back(model.layerOutput(model.wte->forward(ids), 1));
    out.names.push_back("layer 1 output");
  }
  for (const auto& item : model.named_parameters()) {
    out.tensors.push_back(item.value().grad().defined() ? item.value().grad().clone() : at::zeros_like(item.value()));
    out.names.push_back("grad " + item.key());
  }
  return out;
}

}  // namespace

// The active compute paths with only the block-stack path set.
void setMixerStack(std::optional<MixerStackPath> path) {
  kernels::ComputePaths paths;
  paths.mixer_stack = path;
  kernels::setActiveComputePaths(paths);
}

class TestMixerStackPaths : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void init() { kernels::setActiveComputePaths({}); }
  void cleanup() { kernels::setActiveComputePaths({}); }

  void pathsAgree_data() {
    QTest::addColumn<int>("index");
    QTest::addColumn<int>("length");
    for (size_t i = 0; i < variants().size(); ++i) {
      QTest::newRow(variants()[i].name) << static_cast<int>(i) << 10;
      QTest::newRow((std::string(variants()[i].name) + ", L < T").c_str()) << static_cast<int>(i) << 7;
    }
  }
  void pathsAgree() {
    QFETCH(int, index);
    QFETCH(int, length);
    const Variant v = variants()[static_cast<size_t>(index)];
    torch::manual_seed(31);
    auto model = buildMixer(v);
    std::vector<at::Tensor> start;
    for (const auto& p : model->parameters()) start.push_back(p.detach().clone());
    const at::Tensor ids = at::randint(0, 53, {4, length}, at::kLong);

    setMixerStack(MixerStackPath::kModules);
    QCOMPARE(model->stackPath(model->wte->weight), MixerStackPath::kModules);
    const Outputs ref = runOnce(*model, start, ids);
    for (const MixerStackPath asked : {MixerStackPath::kTokenMajor, MixerStackPath::kFused}) {
      setMixerStack(asked);
      const MixerStackPath taken = model->stackPath(model->wte->weight);
      const MixerStackPath expected =
          asked == MixerStackPath::kTokenMajor && v.widest == MixerStackPath::kFused ? asked : v.widest;
      QCOMPARE(mixerStackPathName(taken), mixerStackPathName(expected));
      const Outputs got = runOnce(*model, start, ids);
      QCOMPARE(got.tensors.size(), ref.tensors.size());
      for (size_t i = 0; i < ref.tensors.size(); ++i) {
        const double scale = std::max(ref.tensors[i].abs().max().item<double>(), 1e-30);
        const double err = (got.tensors[i] - ref.tensors[i]).abs().max().item<double>() / scale;
        QVERIFY2(err < 1e-11, qPrintable(QString("%1 via %2: relative error %3")
                                             .arg(QString::fromStdString(ref.names[i]))
                                             .arg(QString::fromStdString(mixerStackPathName(taken)))
                                             .arg(err)));
      }
    }
  }

  // On a GPU under bf16 autocast (the training setting): the default path is the fused one, and
  // its loss and gradients agree with the modules' within half-precision rounding. Skips without a GPU.
  void fusedAgreesOnGpuUnderAutocast() {
    if (!torch::cuda::is_available()) QSKIP("no CUDA device: the GPU comparison is skipped");
    torch::manual_seed(32);
    ModelConfig c = testing::tinyModelConfig("masked_mixer", 256, 128, 4, 64);
    auto model = std::dynamic_pointer_cast<MaskedMixer>(buildModel(c));
    model->to(at::kCUDA);
    const at::Tensor ids = at::randint(0, 256, {8, 64}, at::TensorOptions().dtype(at::kLong).device(at::kCUDA));
    std::vector<MixerStackPath> taken;
    auto run = [&](std::optional<MixerStackPath> path) {
      setMixerStack(path);
      model->zero_grad();
      at::Tensor loss;
      {
        AutocastScope autocast(at::Device(at::kCUDA), Precision::Bf16);
        taken.push_back(model->stackPath(model->wte->weight));
        const at::Tensor logits = model->forward(ids);
        loss = at::cross_entropy_loss(logits.narrow(1, 0, 63).reshape({-1, 256}).to(at::kFloat),
                                      ids.narrow(1, 1, 63).reshape({-1}));
      }
      loss.backward();
      std::vector<at::Tensor> out = {loss.detach().cpu()};
      for (const auto& p : model->parameters()) out.push_back(p.grad().detach().to(at::kCPU, at::kDouble));
      return out;
    };
    const auto ref = run(MixerStackPath::kModules);
    const auto got = run(std::nullopt);
    QCOMPARE(mixerStackPathName(taken.at(1)), std::string("fused"));
    for (size_t i = 0; i < ref.size(); ++i) {
      const double scale = std::max(ref[i].abs().max().item<double>(), 1e-30);
      const double err = (got[i].to(at::kDouble) - ref[i].to(at::kDouble)).abs().max().item<double>() / scale;
      QVERIFY2(err < 5e-2, qPrintable(QString("tensor %1 (0 = loss): relative error %2").arg(i).arg(err)));
    }
  }

  void cpuDefaultsToModules() {
    auto model = buildMixer(variants()[0]);
    QCOMPARE(mixerStackPathName(model->stackPath(model->wte->weight)), std::string("modules"));
  }

  void layerHookForcesModules() {
    auto model = buildMixer(variants()[0]);
    setMixerStack(MixerStackPath::kFused);
    QCOMPARE(model->stackPath(model->wte->weight), MixerStackPath::kFused);
    int calls = 0;
    model->setLayerHook([&calls](int64_t, const at::Tensor& h) {
      ++calls;
      return h;
    });
    QCOMPARE(model->stackPath(model->wte->weight), MixerStackPath::kModules);
    model->forward(at::zeros({1, 4}, at::kLong));
    QCOMPARE(calls, 3);
  }

  void namesRoundTrip() {
    for (const MixerStackPath p : {MixerStackPath::kModules, MixerStackPath::kTokenMajor, MixerStackPath::kFused}) {
      QCOMPARE(parseMixerStackPath(mixerStackPathName(p)).value(), p);
    }
    QVERIFY(!parseMixerStackPath("fastest").has_value());
  }
};

QTEST_APPLESS_MAIN(TestMixerStackPaths)
#include "test_mixer_stack_paths.moc"
