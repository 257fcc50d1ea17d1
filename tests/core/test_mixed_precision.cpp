// Mixed precision: the autocast scope really lowers the matrix products and restores
// the previous state; the dynamic loss scaler's arithmetic; bf16 training of every family on the
// CPU stays close to fp32 with fp32 weights; fp16 on the CPU is refused with the fix; and a run with
// dynamic loss scaling resumes with exactly the scale an uninterrupted run has.
#include <torch/torch.h>
#include <QtTest/QtTest>

#include "core/config/project_config.h"
#include "core/models/bias_fused_linear.h"
#include "core/models/mixers/masked_mixer.h"
#include "core/models/model_registry.h"
#include "core/runs/metrics_log.h"
#include "core/runs/run_directory.h"
#include "core/train/checkpoint.h"
#include "core/train/loss_scaler.h"
#include "core/train/mixed_precision.h"
#include "core/train/trainer.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "tests/training_fixture.h"

using namespace mixerlab;
namespace fs = std::filesystem;

namespace {

using testing::trainTinyRun;

std::vector<double> trainLosses(const fs::path& dir) {
  std::vector<double> losses;
  for (const auto& r : readMetrics(dir / "metrics.jsonl")) {
    if (r.train_loss) losses.push_back(*r.train_loss);
  }
  return losses;
}

double extraMetric(const MetricsRecord& r, const std::string& name) {
  const auto it = r.extra_metrics.find(name);
  return it == r.extra_metrics.end() ? -1.0 : it->second;
}

}  // namespace

class TestMixedPrecision : public QObject {
  Q_OBJECT
  fs::path dir_;
  ProjectConfig project_;

 private Q_SLOTS:
  void initTestCase() {
    at::set_num_threads(2);
    dir_ = testing::makeScratchDir("mixed-precision");
    project_ = loadProject(testing::writeTinyProject(dir_));
  }

  // Inside a bf16 scope a matrix product comes out bf16; after it, fp32 again; an fp32 scope does
  // nothing; nested scopes restore the outer one's state.
  void autocastScopeLowersMatmulsAndRestores() {
    const auto a = torch::randn({4, 8});
    const auto b = torch::randn({8, 3});
    const c10::Device cpu(c10::kCPU);
    QVERIFY(!autocastEnabled(c10::DeviceType::CPU));
    {
      AutocastScope outer(cpu, Precision::Bf16);
      QVERIFY(autocastEnabled(c10::DeviceType::CPU));
      QCOMPARE(torch::matmul(a, b).scalar_type(), torch::kBFloat16);
      {
        AutocastScope inner(cpu, Precision::Fp32);  // fp32: leaves the outer scope's autocast on
        QCOMPARE(torch::matmul(a, b).scalar_type(), torch::kBFloat16);
      }
      QVERIFY(autocastEnabled(c10::DeviceType::CPU));
    }
    QVERIFY(!autocastEnabled(c10::DeviceType::CPU));
    QCOMPARE(torch::matmul(a, b).scalar_type(), torch::kFloat);
    QCOMPARE(atLeastFp32(torch::ones({2}, torch::kBFloat16)).scalar_type(), torch::kFloat);
    QCOMPARE(atLeastFp32(torch::ones({2}, torch::kDouble)).scalar_type(), torch::kDouble);
    QCOMPARE(parsePrecision("bf16"), Precision::Bf16);
    QVERIFY_THROWS_EXCEPTION(MixerLabError, parsePrecision("fp8"));
  }

  // BiasFusedLinear (the mixers' feed-forward): x W^T + b with its gradients, in fp32 and under bf16
  // autocast (output bf16 like the product), on the CPU (the library's forward, bit for bit) and on
  // a GPU (at::linear, the bias in the GEMM); the flat mixer's feed-forward is built from it.
  void biasFusedLinearIsLinear_data() {
    QTest::addColumn<QString>("device");
    QTest::addColumn<bool>("bf16");
    for (const char* device : {"cpu", "cuda"}) {
      QTest::addRow("%s fp32", device) << QString(device) << false;
      QTest::addRow("%s bf16", device) << QString(device) << true;
    }
  }
  void biasFusedLinearIsLinear() {
    QFETCH(QString, device);
    QFETCH(bool, bf16);
    if (device == "cuda" && !torch::cuda::is_available()) QSKIP("no CUDA device");
    const c10::Device where(device.toStdString());
    torch::manual_seed(3);
    BiasFusedLinear fused(24, 40);
    torch::nn::Linear plain(24, 40);
    {
      torch::NoGradGuard no_grad;
      plain->weight.copy_(fused->weight);
      plain->bias.copy_(fused->bias);
    }
    fused->to(where);
    plain->to(where);
    const auto x = torch::randn({3, 5, 24}).to(where);
    at::Tensor fused_out, plain_out;
    {
      AutocastScope autocast(where, bf16 ? Precision::Bf16 : Precision::Fp32);
      fused_out = fused->forward(x);
      plain_out = plain->forward(x);
    }
    QCOMPARE(fused_out.scalar_type(), bf16 ? torch::kBFloat16 : torch::kFloat);
    const auto expected =
        torch::matmul(x.to(torch::kDouble), fused->weight.to(torch::kDouble).t()) + fused->bias.to(torch::kDouble);
    const double tolerance = bf16 ? 0.05 : 1e-5;
    const double error = (fused_out.to(torch::kDouble) - expected).abs().max().item<double>();
    QVERIFY2(error < tolerance, qPrintable(QString("largest error %1").arg(error)));
    if (where.is_cpu()) QVERIFY(torch::equal(fused_out, plain_out));
    fused_out.to(torch::kFloat).pow(2).sum().backward();
    plain_out.to(torch::kFloat).pow(2).sum().backward();
    for (const auto& [a, b] :
         {std::pair{fused->weight.grad(), plain->weight.grad()}, std::pair{fused->bias.grad(), plain->bias.grad()}}) {
      const double scale = b.abs().max().item<double>();
      QVERIFY2((a - b).abs().max().item<double>() <= (bf16 ? 0.05 : 1e-5) * scale, "gradients differ");
    }
    ModelConfig mixer;
    mixer.arch = "masked_mixer";
    mixer.vocab_size = 32;
    mixer.d_model = 16;
    mixer.n_layers = 1;
    mixer.context_length = 8;
    auto model = std::dynamic_pointer_cast<MaskedMixer>(buildModel(mixer));
    QVERIFY(model);
    auto* block = model->mixerblocks[0]->as<MixerBlockImpl>();
    QVERIFY(block->patch_ff[0]->as<BiasFusedLinearImpl>() && block->patch_ff[2]->as<BiasFusedLinearImpl>());
  }

  // The scaler's arithmetic: unscaling divides the gradients; an inf gradient reports non-finite;
  // backoff halves and counts the skip; growth doubles after growth_interval finite steps (and the
  // count restarts after a backoff); a scale below the floor is a clear error; the state round-trips.
  void lossScalerBacksOffAndGrows() {
    LossScalerSettings settings;
    settings.initial_scale = 8;
    settings.growth_interval = 3;
    settings.min_scale = 1;
    DynamicLossScaler scaler(settings);
    auto p = torch::zeros({3}, torch::requires_grad());
    p.mutable_grad() = torch::tensor({8.0f, -16.0f, 4.0f});
    QVERIFY(scaler.unscaleAndCheck({p}));
    QVERIFY(torch::equal(p.grad(), torch::tensor({1.0f, -2.0f, 0.5f})));
    scaler.update(true);
    scaler.update(true);
    QCOMPARE(scaler.scale(), 8.0);
    p.mutable_grad() = torch::tensor({1.0f, std::numeric_limits<float>::infinity(), 0.0f});
    QVERIFY(!scaler.unscaleAndCheck({p}));
    scaler.update(false);
    QCOMPARE(scaler.scale(), 4.0);
    QCOMPARE(scaler.state().skipped_steps, int64_t{1});
    QCOMPARE(scaler.state().finite_steps, int64_t{0});
    for (int i = 0; i < 2; ++i) scaler.update(true);
    QCOMPARE(scaler.scale(), 4.0);  // the two finite steps before the backoff do not count
    scaler.update(true);
    QCOMPARE(scaler.scale(), 8.0);

    const LossScalerState saved = scaler.state();
    QVERIFY(LossScalerState::fromJson(saved.toJson()) == saved);
    QVERIFY_THROWS_EXCEPTION(MixerLabError,
                             LossScalerState::fromJson({{"scale", -1.0}, {"finite_steps", 0}, {"skipped_steps", 0}}));
    scaler.update(false);  // 4
    scaler.update(false);  // 2
    scaler.update(false);  // 1
    try {
      scaler.update(false);  // 0.5 < min_scale
      QFAIL("a scale below the floor was accepted");
    } catch (const MixerLabError& e) {
      QVERIFY2(std::string(e.what()).find("bf16") != std::string::npos, e.what());
    }
  }

  // bf16 autocast on the CPU trains every family: its losses stay within 0.1 of the fp32 run's
  // (bf16 keeps about 3 significant digits), they fall, and the saved weights are fp32.
  void bf16TrainsCloseToFp32_data() {
    QTest::addColumn<QString>("arch");
    QTest::newRow("mixer") << "masked_mixer";
    QTest::newRow("llama") << "llama";
    QTest::newRow("mamba") << "mamba";
  }
  void bf16TrainsCloseToFp32() {
    QFETCH(QString, arch);
    RunConfig run = project_.run("mixer");
    run.model.arch = arch.toStdString();
    run.model.n_heads = 4;
    run.train.max_steps = 6;
    run.train.schedule_steps = 6;
    run.train.eval_every = 0;
    run.train.checkpoint_every = 0;
    const fs::path fp32_dir = dir_ / ("fp32-" + arch.toStdString());
    const fs::path bf16_dir = dir_ / ("bf16-" + arch.toStdString());
    trainTinyRun(project_, run, fp32_dir);
    run.train.precision = "bf16";
    const TrainOutcome outcome = trainTinyRun(project_, run, bf16_dir);
    QCOMPARE(outcome.state, RunState::Finished);
    const auto fp32 = trainLosses(fp32_dir);
    const auto bf16 = trainLosses(bf16_dir);
    QCOMPARE(bf16.size(), fp32.size());
    for (size_t i = 0; i < fp32.size(); ++i) {
      QVERIFY2(std::abs(bf16[i] - fp32[i]) < 0.1,
               qPrintable(QString("step %1: bf16 %2, fp32 %3").arg(i + 1).arg(bf16[i]).arg(fp32[i])));
    }
    QVERIFY2(bf16.back() < bf16.front(), qPrintable(QString("bf16 loss %1 -> %2").arg(bf16.front()).arg(bf16.back())));
    // Not bit-equal either: autocast really ran.
    QVERIFY(bf16 != fp32);
    const auto checkpoint = latestCheckpoint(bf16_dir / "checkpoints");
    QVERIFY(checkpoint);
    auto model = loadModelFromCheckpoint(*checkpoint);
    for (const auto& p : model->parameters()) QCOMPARE(p.scalar_type(), torch::kFloat);
  }

  void fp16OnTheCpuIsRefusedWithTheFix() {
    RunConfig run = project_.run("mixer");
    run.train.precision = "fp16";
    run.train.max_steps = 2;
    try {
      trainTinyRun(project_, run, dir_ / "fp16-cpu");
      QFAIL("fp16 on the CPU trained");
    } catch (const MixerLabError& e) {
      const std::string message = std::string(e.what());
      QVERIFY2(message.find("fp16") != std::string::npos && message.find("bf16") != std::string::npos, message.c_str());
    }
  }

  // train.precision "fp16_on_cuda" (the paper presets): fp16 on a CUDA device, fp32 on the
  // CPU, so the same preset trains on both; a CPU run with it trains in fp32, without loss scaling,
  // and its log says what the setting resolved to.
  void fp16OnCudaIsFp32OnTheCpu() {
    QCOMPARE(resolvePrecision("fp16_on_cuda", c10::Device("cuda:0")), Precision::Fp16);
    QCOMPARE(resolvePrecision("fp16_on_cuda", c10::Device(c10::kCPU)), Precision::Fp32);
    QCOMPARE(resolvePrecision("bf16", c10::Device(c10::kCPU)), Precision::Bf16);
    QCOMPARE(resolvePrecision("fp16", c10::Device("cuda:1")), Precision::Fp16);
    QVERIFY_THROWS_EXCEPTION(MixerLabError, resolvePrecision("fp8", c10::Device(c10::kCPU)));
    RunConfig run = project_.run("mixer");
    run.train.precision = "fp16_on_cuda";
    run.train.max_steps = 2;
    const fs::path run_dir = dir_ / "fp16-on-cuda-cpu";
    const TrainOutcome outcome = trainTinyRun(project_, run, run_dir);
    QCOMPARE(outcome.state, RunState::Finished);
    const auto records = readMetrics(run_dir / "metrics.jsonl");
    QVERIFY(!records.empty());
    for (const auto& r : records) QCOMPARE(extraMetric(r, "loss_scale"), -1.0);
    const std::string log = readFile(RunPaths{run_dir}.log());
    QVERIFY2(log.find("precision fp32 (train.precision fp16_on_cuda)") != std::string::npos, log.c_str());
  }

  // Dynamic loss scaling (forced on in fp32, growth every 2 steps so the scale moves): the metrics
  // log the scale, and a run stopped at step 4 and resumed logs exactly what the uninterrupted run
  // logs, the scale included (it comes back from the checkpoint, not from initial_loss_scale).
  void lossScaleResumesExactly() {
    RunConfig run = project_.run("mixer");
    run.train.loss_scaling = "dynamic";
    run.train.initial_loss_scale = 1024;
    run.train.loss_scale_growth_interval = 2;
    run.train.max_steps = 8;
    run.train.schedule_steps = 8;
    run.train.checkpoint_every = 4;
    run.train.eval_every = 4;
    const fs::path whole = dir_ / "scaled-whole";
    trainTinyRun(project_, run, whole);
    const auto records = readMetrics(whole / "metrics.jsonl");
    QVERIFY(!records.empty());
    QCOMPARE(extraMetric(records.back(), "loss_scale"), 1024.0 * 16);  // doubled at steps 2, 4, 6, 8
    QCOMPARE(extraMetric(records.back(), "skipped_steps"), 0.0);

    const fs::path resumed = dir_ / "scaled-resumed";
    QCOMPARE(trainTinyRun(project_, run, resumed, false, /*stop_after_step=*/4).state, RunState::Stopped);
    QCOMPARE(trainTinyRun(project_, run, resumed, /*resume=*/true).state, RunState::Finished);
    const auto again = readMetrics(resumed / "metrics.jsonl");
    QCOMPARE(again.size(), records.size());
    for (size_t i = 0; i < records.size(); ++i) {
      QCOMPARE(extraMetric(again[i], "loss_scale"), extraMetric(records[i], "loss_scale"));
      QVERIFY2(again[i].train_loss == records[i].train_loss,
               qPrintable(QString::fromStdString(again[i].toJsonLine() + " vs " + records[i].toJsonLine())));
    }
  }
};

QTEST_APPLESS_MAIN(TestMixedPrecision)
#include "test_mixed_precision.moc"
