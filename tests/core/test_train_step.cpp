// Tests of one optimizer step and of evaluation below the trainer loop: gradient
// clipping binds, gradient accumulation over micro-batches equals one batch of the same rows,
// evaluation runs with dropout off, and the causal loss scores logits at t against the label at
// t+1. Each pins a mistake the end-to-end training tests would not notice (the loss still falls).
#include <torch/torch.h>
#include <QtTest/QtTest>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

#include "core/config/train_config.h"
#include "core/data/batching.h"
#include "core/data/token_cache.h"
#include "core/models/model_registry.h"
#include "core/train/evaluator.h"
#include "core/train/multi_tensor_optimizer.h"
#include "core/train/train_step.h"
#include "tests/test_support.h"
#include "tests/tiny_model_config.h"

using namespace mixerlab;
namespace fs = std::filesystem;

namespace {

constexpr int64_t kVocab = 61;
constexpr int64_t kContext = 8;

ModelConfig tinyModel(const std::string& arch, nlohmann::json options = nlohmann::json::object()) {
  ModelConfig c = testing::tinyModelConfig(arch, kVocab, 16, 2, kContext, std::move(options));
  c.n_heads = 2;
  return c;
}

// A token cache file in the documented layout (token_cache.h) with random documents, so the tests
// drive the real ExampleSet / PrefetchingLoader without training a tokenizer.
void writeRandomTokenCache(const fs::path& path, int documents, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int32_t> token(4, kVocab - 1);
  std::uniform_int_distribution<int> length(3, 20);
  TokenShardWriter writer(path, 2);
  for (int d = 0; d < documents; ++d) {
    std::vector<int> ids(static_cast<size_t>(length(rng)));
    for (int& id : ids) id = token(rng);
    writer.addDocument(ids);
  }
  writer.commit();
}

ExampleSet packedExamples(const TokenCache& cache, int64_t batch_size) {
  BatchingSettings s;
  s.context_length = kContext;
  s.batch_size = batch_size;
  s.mode = BatchMode::Packed;
  s.pad_id = 3;
  s.eos_id = 2;
  std::vector<size_t> docs(cache.numDocuments());
  for (size_t i = 0; i < docs.size(); ++i) docs[i] = i;
  return ExampleSet(cache, docs, s);
}

struct StepResult {
  std::vector<at::Tensor> before, after, grads;  // parameters before / after, gradients left by the step
  StepOutcome outcome;
  TrainerState state;
};

// One runTrainStep on a fresh masked mixer (same seed every call) in double precision, so results
// of different batchings agree to rounding. The optimizer is built as the trainer builds it.
StepResult oneStep(const ExampleSet& examples, double clip_norm, int64_t accum_steps,
                   const StepPrecision& precision = {}) {
  torch::manual_seed(7);
  auto model = buildModel(tinyModel("masked_mixer"));
  model->to(torch::kDouble);
  model->train();
  TrainConfig tc;
  tc.grad_clip_norm = clip_norm;
  tc.grad_accum_steps = accum_steps;
  torch::optim::AdamW optimizer(model->parameters(), torch::optim::AdamWOptions(tc.learning_rate)
                                                         .betas({tc.beta1, tc.beta2})
                                                         .eps(tc.adam_eps)
                                                         .weight_decay(tc.weight_decay));
  StepResult r;
  for (const auto& p : model->parameters()) r.before.push_back(p.detach().clone());
  PrefetchingLoader loader(examples, /*seed=*/11, /*shuffle=*/true, DataPosition{});
  r.outcome =
      runTrainStep(*model, optimizer, loader, tc, torch::Device(torch::kCPU), 1e-3, r.state, nullptr, precision);
  for (const auto& p : model->parameters()) {
    r.after.push_back(p.detach().clone());
    r.grads.push_back(p.grad().defined() ? p.grad().detach().clone() : torch::zeros_like(p));
  }
  return r;
}

double totalNorm(const std::vector<at::Tensor>& tensors) {
  double sum = 0;
  for (const auto& t : tensors) sum += t.pow(2).sum().item<double>();
  return std::sqrt(sum);
}

std::vector<at::Tensor> differences(const std::vector<at::Tensor>& a, const std::vector<at::Tensor>& b) {
  std::vector<at::Tensor> out;
  for (size_t i = 0; i < a.size(); ++i) out.push_back(a[i] - b[i]);
  return out;
}

// Empty when every tensor pair agrees, else the first one that does not and by how much.
QString firstMismatch(const std::vector<at::Tensor>& a, const std::vector<at::Tensor>& b, double rtol, double atol) {
  if (a.size() != b.size()) return QString("%1 vs %2 tensors").arg(a.size()).arg(b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    if (!torch::allclose(a[i], b[i], rtol, atol))
      return QString("tensor %1 differs by up to %2 (magnitude %3)")
          .arg(i)
          .arg((a[i] - b[i]).abs().max().item<double>())
          .arg(a[i].abs().max().item<double>());
  }
  return {};
}

// The causal loss written out: -log p(label[b, t+1] | logits[b, t]) averaged over the targets that
// are not -100. `shift` 0 gives the unshifted (wrong) version for contrast.
double handCrossEntropy(const at::Tensor& logits, const at::Tensor& labels, int64_t shift, int64_t* targets = nullptr) {
  const auto log_probs = torch::log_softmax(logits.to(torch::kDouble), -1);
  double sum = 0;
  int64_t count = 0;
  for (int64_t b = 0; b < labels.size(0); ++b) {
    for (int64_t t = 0; t + shift < labels.size(1); ++t) {
      const int64_t label = labels[b][t + shift].item<int64_t>();
      if (label == kIgnoreLabel) continue;
      sum -= log_probs[b][t][label].item<double>();
      ++count;
    }
  }
  if (targets) *targets = count;
  return sum / static_cast<double>(count);
}

// Hand-made eval batches: one full batch and one with right padding (fewer targets), so the
// token weighting of evaluateLoss matters.
std::vector<Batch> evalBatches() {
  torch::manual_seed(3);
  std::vector<Batch> batches;
  for (int64_t rows : {2, 3}) {
    Batch b;
    b.input_ids = torch::randint(4, kVocab, {rows, kContext}, torch::kInt64);
    b.labels = b.input_ids.clone();
    if (rows == 3) {
      b.input_ids.narrow(1, 5, kContext - 5).fill_(3);
      b.labels.narrow(1, 5, kContext - 5).fill_(kIgnoreLabel);
    }
    b.num_tokens = rows * kContext;
    b.num_target_tokens = b.labels.ne(kIgnoreLabel).sum().item<int64_t>();
    batches.push_back(b);
  }
  return batches;
}

// Copies of one set of parameters (shapes of a mixer block and a head) with the same gradients.
std::vector<at::Tensor> parametersWithGradients(uint64_t seed) {
  torch::manual_seed(seed);
  std::vector<at::Tensor> out;
  for (const auto& shape :
       std::vector<std::vector<int64_t>>{{16}, {16}, {8, 8}, {8}, {64, 16}, {64}, {16, 64}, {61, 16}}) {
    auto p = torch::randn(shape).set_requires_grad(true);
    p.mutable_grad() = torch::randn(shape) * 3.0;
    out.push_back(p);
  }
  return out;
}

std::vector<at::Tensor> cloneWithGradients(const std::vector<at::Tensor>& parameters) {
  std::vector<at::Tensor> out;
  for (const auto& p : parameters) {
    auto copy = p.detach().clone().set_requires_grad(true);
    copy.mutable_grad() = p.grad().clone();
    out.push_back(copy);
  }
  return out;
}

// The largest absolute difference between two lists of tensors.
double largestDifference(const std::vector<at::Tensor>& a, const std::vector<at::Tensor>& b) {
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i) worst = std::max(worst, (a[i] - b[i]).abs().max().item<double>());
  return worst;
}

}  // namespace

class TestTrainStep : public QObject {
  Q_OBJECT
  fs::path dir_;
  std::optional<TokenCache> cache_;

 private Q_SLOTS:
  void initTestCase() {
    at::set_num_threads(2);
    dir_ = testing::makeScratchDir("train-step");
    writeRandomTokenCache(dir_ / "tokens.bin", 40, 5);
    cache_ = TokenCache::open(dir_ / "tokens.bin");
  }

  // The multi-tensor AdamW (the GPU path) takes the library's steps bit for bit, with non-default
  // betas, epsilon and weight decay, and shares its state: steps alternating between the two paths
  // equal three library steps, moments and step counts included (so a checkpoint written by one
  // path resumes under the other). Each group's own options rule, never the optimizer's defaults:
  // two groups with options unlike the defaults and unlike each other, and a learning rate set on
  // every group before each step, as train_step's schedule does.
  void multiTensorAdamWMatchesTheLibrary() {
    const auto defaults = torch::optim::AdamWOptions(2e-2).betas({0.8, 0.95}).eps(1e-4).weight_decay(0.3);
    const auto second = torch::optim::AdamWOptions(5e-3).betas({0.7, 0.9}).eps(1e-3).weight_decay(0.05);
    auto library_params = parametersWithGradients(11);
    auto mixed_params = cloneWithGradients(library_params);
    const auto grouped = [&](const std::vector<at::Tensor>& params) {
      const auto half = params.begin() + static_cast<std::ptrdiff_t>(params.size() / 2);
      std::vector<torch::optim::OptimizerParamGroup> groups;
      groups.emplace_back(std::vector<at::Tensor>(params.begin(), half),
                          std::make_unique<torch::optim::AdamWOptions>(defaults));
      groups.emplace_back(std::vector<at::Tensor>(half, params.end()),
                          std::make_unique<torch::optim::AdamWOptions>(second));
      return groups;
    };
    torch::optim::AdamW library(grouped(library_params), defaults);
    torch::optim::AdamW mixed(grouped(mixed_params), defaults);
    const auto schedule = [](torch::optim::AdamW& optimizer, int step) {
      for (size_t g = 0; g < optimizer.param_groups().size(); ++g) {
        auto& options = static_cast<torch::optim::AdamWOptions&>(optimizer.param_groups()[g].options());
        options.lr((g == 0 ? 3e-2 : 7e-3) * (1.0 + 0.5 * step));
      }
    };
    for (int step = 0; step < 3; ++step) {
      schedule(library, step);
      schedule(mixed, step);
      library.step();
      if (step == 1) {
        mixed.step();
      } else {
        adamwStepForeach(mixed);
      }
      QCOMPARE(largestDifference(library_params, mixed_params), 0.0);
      torch::NoGradGuard no_grad;
      for (size_t i = 0; i < library_params.size(); ++i) {  // new gradients for the next step
        library_params[i].grad().mul_(-0.7).add_(0.01 * static_cast<double>(i));
        mixed_params[i].grad().mul_(-0.7).add_(0.01 * static_cast<double>(i));
      }
    }
    for (size_t i = 0; i < library_params.size(); ++i) {
      const auto* expected = adamwStateOf(library, library_params[i]);
      const auto* actual = adamwStateOf(mixed, mixed_params[i]);
      QVERIFY(expected != nullptr && actual != nullptr);
      QCOMPARE(actual->step(), int64_t{3});
      QCOMPARE(actual->step(), expected->step());
      QCOMPARE(
          largestDifference({actual->exp_avg(), actual->exp_avg_sq()}, {expected->exp_avg(), expected->exp_avg_sq()}),
          0.0);
    }
    // An independent check that the groups' options were used: one plain AdamW step of the first
    // parameter (group 0, lr 3e-2 at step 0) written out from its formula.
    auto p = parametersWithGradients(11).front();
    const auto g = p.grad();
    const double lr = 3e-2, beta1 = 0.8, beta2 = 0.95, eps = 1e-4, decay = 0.3;
    const auto m = (1 - beta1) * g, v = (1 - beta2) * g * g;
    const auto expected = p.detach() * (1 - lr * decay) - lr * (m / (1 - beta1)) / ((v / (1 - beta2)).sqrt() + eps);
    std::vector<at::Tensor> single{p};
    std::vector<torch::optim::OptimizerParamGroup> one;
    one.emplace_back(single, std::make_unique<torch::optim::AdamWOptions>(defaults));
    torch::optim::AdamW by_hand(std::move(one), torch::optim::AdamWOptions(1.0));
    static_cast<torch::optim::AdamWOptions&>(by_hand.param_groups()[0].options()).lr(lr);
    adamwStepForeach(by_hand);
    QVERIFY2(torch::allclose(p.detach(), expected, 1e-5, 1e-6), "the multi-tensor step is not AdamW's formula");
  }

  // On a GPU the multi-tensor update (the fused kernel with LibTorch 2.1+, else the foreach ops) stays
  // within rounding of the library's loop over three steps, weight decay included.
  void multiTensorAdamWOnTheGpuTracksTheLibrary() {
    if (!torch::cuda::is_available()) QSKIP("no CUDA device");
    const auto options = torch::optim::AdamWOptions(2e-2).betas({0.8, 0.95}).eps(1e-4).weight_decay(0.3);
    std::vector<at::Tensor> library_params, gpu_params;
    for (const auto& p : parametersWithGradients(13)) {
      auto on_gpu = p.detach().to(torch::kCUDA).set_requires_grad(true);
      on_gpu.mutable_grad() = p.grad().to(torch::kCUDA);
      gpu_params.push_back(on_gpu);
      auto other = on_gpu.detach().clone().set_requires_grad(true);
      other.mutable_grad() = on_gpu.grad().clone();
      library_params.push_back(other);
    }
    torch::optim::AdamW library(library_params, options);
    torch::optim::AdamW multi(gpu_params, options);
    for (int step = 0; step < 3; ++step) {
      library.step();
      adamwStep(multi);
    }
    const double difference = largestDifference(library_params, gpu_params);
    QVERIFY2(difference < 1e-5, qPrintable(QString("largest difference %1").arg(difference)));
    double moved = 0;
    const auto start = parametersWithGradients(13);
    for (size_t i = 0; i < start.size(); ++i)
      moved = std::max(moved, (gpu_params[i].cpu() - start[i]).abs().max().item<double>());
    QVERIFY2(moved > 0.01, "the update did not move the weights");
    QCOMPARE(adamwStateOf(multi, gpu_params.front())->step(), int64_t{3});
  }

  // Multi-tensor clipping: the same norm and the same scaled gradients as clip_grad_norm_ when the
  // limit binds, untouched gradients when it does not, and the norm alone without clipping.
  void multiTensorClippingMatchesTheLibrary() {
    auto library = parametersWithGradients(12);
    auto multi = cloneWithGradients(library);
    const double library_norm = clipGradientNormLibrary(library, 1.5);
    const double multi_norm = clipGradientNormForeach(multi, 1.5);
    QVERIFY2(library_norm > 10, qPrintable(QString("norm %1 should bind at 1.5").arg(library_norm)));
    QVERIFY2(std::abs(library_norm - multi_norm) <= 1e-6 * library_norm,
             qPrintable(QString("norm %1 against the library's %2").arg(multi_norm).arg(library_norm)));
    std::vector<at::Tensor> library_grads, multi_grads;
    for (size_t i = 0; i < library.size(); ++i) {
      library_grads.push_back(library[i].grad());
      multi_grads.push_back(multi[i].grad());
    }
    QVERIFY2(largestDifference(library_grads, multi_grads) <= 1e-6, "clipped gradients differ");
    QVERIFY2(std::abs(gradientNormForeach(multi) - 1.5) < 1e-5, "the clipped gradients' norm is not the limit");

    auto loose = parametersWithGradients(12);
    const auto before = cloneWithGradients(loose);
    const double loose_norm = clipGradientNormForeach(loose, 1e6);
    QVERIFY(std::abs(loose_norm - library_norm) <= 1e-6 * library_norm);
    std::vector<at::Tensor> loose_grads, before_grads;
    for (size_t i = 0; i < loose.size(); ++i) {
      loose_grads.push_back(loose[i].grad());
      before_grads.push_back(before[i].grad());
    }
    QCOMPARE(largestDifference(loose_grads, before_grads), 0.0);
    QVERIFY(std::abs(gradientNormForeach(before) - gradientNormLibrary(before)) <= 1e-6 * library_norm);
    QVERIFY(!multiTensorOptimizerPreferred(before.front()));  // the CPU keeps the library's loops
  }

  // A binding clip norm leaves the gradient on the parameters scaled down to that norm (same
  // direction), and the update differs from the unclipped one.
  void clippingBoundsGradientNormAndChangesUpdate() {
    const ExampleSet examples = packedExamples(*cache_, 4);
    const StepResult free = oneStep(examples, /*clip_norm=*/0, 1);
    const double free_norm = totalNorm(free.grads);
    QVERIFY2(free_norm > 1e-3, qPrintable(QString("unclipped gradient norm %1").arg(free_norm)));

    const double limit = 1e-6;
    const StepResult clipped = oneStep(examples, limit, 1);
    QVERIFY(clipped.outcome.loss == free.outcome.loss);  // same data, same weights before the update
    const double clipped_norm = totalNorm(clipped.grads);
    QVERIFY2(clipped_norm <= limit * (1 + 1e-9) && clipped_norm > 0.99 * limit,
             qPrintable(QString("gradient norm after clipping %1, limit %2").arg(clipped_norm).arg(limit)));
    std::vector<at::Tensor> rescaled;
    for (const auto& g : free.grads) rescaled.push_back(g * (clipped_norm / free_norm));
    const QString direction = firstMismatch(clipped.grads, rescaled, 1e-9, 1e-18);
    QVERIFY2(direction.isEmpty(), qPrintable("clipping changed the gradient's direction: " + direction));

    const double free_update = totalNorm(differences(free.after, free.before));
    const double clipped_update = totalNorm(differences(clipped.after, clipped.before));
    QVERIFY2(clipped_update < 0.5 * free_update,
             qPrintable(QString("update %1 with clipping, %2 without").arg(clipped_update).arg(free_update)));
  }

  // grad_accum_steps 2 x batch B takes the same first step as 1 x batch 2B over the same rows
  // (packed rows: every micro-batch has the same target count, so the mean of the micro-batch
  // means is the mean over all rows). The gradients left on the parameters are compared, not only
  // the weights: AdamW's first step is nearly blind to the gradient's scale, so a missing division
  // by the number of micro-batches would hardly move the weights. The "binding clip" row pins that
  // the clip applies to the accumulated gradient, not per micro-batch.
  void accumulationEqualsOneLargeBatch_data() {
    QTest::addColumn<double>("clip_norm");
    QTest::newRow("no clip") << 0.0;
    QTest::newRow("clip not binding") << 1e6;
    QTest::newRow("binding clip") << 1e-3;
  }
  void accumulationEqualsOneLargeBatch() {
    QFETCH(double, clip_norm);
    const int64_t B = 3;
    const ExampleSet small = packedExamples(*cache_, B);
    const ExampleSet large = packedExamples(*cache_, 2 * B);
    const StepResult accumulated = oneStep(small, clip_norm, 2);
    const StepResult single = oneStep(large, clip_norm, 1);

    QCOMPARE(accumulated.outcome.tokens, 2 * B * kContext);
    QCOMPARE(accumulated.outcome.tokens, single.outcome.tokens);
    QCOMPARE(accumulated.state.data_position.index, single.state.data_position.index);
    QVERIFY(std::abs(accumulated.outcome.loss - single.outcome.loss) < 1e-12);
    const QString grads = firstMismatch(accumulated.grads, single.grads, 1e-9, 1e-14);
    QVERIFY2(grads.isEmpty(), qPrintable("gradients: " + grads));
    const QString params = firstMismatch(accumulated.after, single.after, 1e-9, 1e-12);
    QVERIFY2(params.isEmpty(), qPrintable("parameters after the step: " + params));
    if (clip_norm > 0 && clip_norm < 1) {  // the clip really binds in this row
      QVERIFY(totalNorm(oneStep(large, 0, 1).grads) > 10 * clip_norm);
      QVERIFY(totalNorm(single.grads) <= clip_norm * (1 + 1e-9));
    }
  }

  // evaluateLoss switches dropout off (two calls agree exactly and equal the eval-mode loss by
  // hand, token-weighted across batches) and leaves the model's mode as it found it.
  // Dynamic loss scaling by a power of two changes nothing but the scale: the gradients left on the
  // parameters (unscaled) and the update are bit for bit those of the unscaled step, and the norm
  // logged is the true one. A scaler that forgot to unscale would leave 2^20 times larger gradients.
  void powerOfTwoLossScaleGivesTheSameStep() {
    const ExampleSet examples = packedExamples(*cache_, 4);
    const StepResult plain = oneStep(examples, /*clip_norm=*/1.0, 2);
    LossScalerSettings settings;
    settings.initial_scale = 1 << 20;
    DynamicLossScaler scaler(settings);
    const StepResult scaled = oneStep(examples, 1.0, 2, StepPrecision{Precision::Fp32, &scaler});
    QVERIFY(!scaled.outcome.skipped_for_overflow);
    QVERIFY(scaled.outcome.loss == plain.outcome.loss);
    const QString grads = firstMismatch(scaled.grads, plain.grads, 0, 0);
    QVERIFY2(grads.isEmpty(), qPrintable("gradients: " + grads));
    const QString params = firstMismatch(scaled.after, plain.after, 0, 0);
    QVERIFY2(params.isEmpty(), qPrintable("parameters after the step: " + params));
    QVERIFY(scaled.outcome.grad_norm && plain.outcome.grad_norm);
    QCOMPARE(*scaled.outcome.grad_norm, *plain.outcome.grad_norm);
    QCOMPARE(scaler.state().finite_steps, int64_t{1});
    QCOMPARE(scaler.scale(), double(1 << 20));
  }

  // Gradients that overflow (forced here by an infinite scale: no finite scale overflows a double
  // model's gradients, and fp16 needs a GPU) skip the update: the weights are unchanged, the batch is
  // still consumed, no gradient norm is reported, and the skip is counted.
  void overflowingGradientsSkipTheUpdate() {
    const ExampleSet examples = packedExamples(*cache_, 4);
    LossScalerSettings settings;
    settings.initial_scale = std::numeric_limits<double>::infinity();
    DynamicLossScaler scaler(settings);
    const StepResult r = oneStep(examples, 1.0, 1, StepPrecision{Precision::Fp32, &scaler});
    QVERIFY(r.outcome.skipped_for_overflow);
    QVERIFY(!r.outcome.grad_norm);
    QVERIFY(std::isfinite(r.outcome.loss));
    const QString unchanged = firstMismatch(r.after, r.before, 0, 0);
    QVERIFY2(unchanged.isEmpty(), qPrintable("a skipped step changed the weights: " + unchanged));
    QCOMPARE(r.outcome.tokens, 4 * kContext);
    QVERIFY(r.state.data_position.index > 0);
    QCOMPARE(scaler.state().skipped_steps, int64_t{1});
  }

  void evaluationRunsWithoutDropout() {
    torch::manual_seed(5);
    auto model = buildModel(tinyModel("gpt", {{"dropout", 0.5}}));
    const auto batches = evalBatches();

    model->train();
    {
      torch::NoGradGuard no_grad;  // dropout is really on in training mode, so the test can tell
      const auto logits = model->forward(batches[0].input_ids);
      QVERIFY(!torch::equal(logits, model->forward(batches[0].input_ids)));
    }
    const double first = evaluateLoss(*model, batches, torch::Device(torch::kCPU), EvalWeighting::Tokens);
    QVERIFY(model->is_training());
    const double second = evaluateLoss(*model, batches, torch::Device(torch::kCPU), EvalWeighting::Tokens);
    QVERIFY2(first == second, qPrintable(QString("%1 then %2").arg(first, 0, 'g', 17).arg(second, 0, 'g', 17)));

    model->eval();
    double sum = 0;
    int64_t count = 0;
    {
      torch::NoGradGuard no_grad;
      for (const auto& b : batches) {
        int64_t targets = 0;
        sum += handCrossEntropy(model->forward(b.input_ids), b.labels, 1, &targets) * static_cast<double>(targets);
        count += targets;
      }
    }
    const double by_hand = sum / static_cast<double>(count);
    QVERIFY2(std::abs(first - by_hand) < 1e-5,
             qPrintable(QString("evaluateLoss %1, by hand %2").arg(first).arg(by_hand)));
    QVERIFY(evaluateLoss(*model, batches, torch::Device(torch::kCPU), EvalWeighting::Tokens) == first);
    QVERIFY(!model->is_training());
  }

  // The causal families' loss is -log p(label at t+1 | logits at t), -100 labels skipped; the
  // unshifted pairing gives a clearly different number.
  void lossScoresNextToken_data() {
    QTest::addColumn<QString>("arch");
    for (const char* arch : {"masked_mixer", "llama", "gpt"}) QTest::newRow(arch) << QString(arch);
  }
  void lossScoresNextToken() {
    QFETCH(QString, arch);
    auto model = buildModel(tinyModel(arch.toStdString()));
    QCOMPARE(model->predictionOffset(), int64_t{1});
    torch::manual_seed(9);
    const auto logits = torch::randn({2, 6, kVocab}, torch::kDouble) * 3;
    auto labels = torch::randint(4, kVocab, {2, 6}, torch::kInt64);
    labels[0][2] = kIgnoreLabel;  // a padded target in the middle
    labels[1][5] = kIgnoreLabel;  // and at the end
    labels[1][0] = kIgnoreLabel;  // position 0 is never a target either way

    int64_t targets = 0;
    const double shifted = handCrossEntropy(logits, labels, 1, &targets);
    const double unshifted = handCrossEntropy(logits, labels, 0);
    const double loss = model->loss(logits, labels).item<double>();
    QVERIFY2(std::abs(loss - shifted) < 1e-12,
             qPrintable(QString("loss %1, shifted by hand %2").arg(loss).arg(shifted)));
    QVERIFY2(std::abs(loss - unshifted) > 1e-2,
             qPrintable(QString("loss %1 equals the unshifted %2").arg(loss).arg(unshifted)));
    QCOMPARE(model->targetCount(labels), targets);
    QCOMPARE(targets, int64_t{8});  // 2 x 5 pairs, minus the two -100 targets at t+1 >= 1
  }
};

QTEST_APPLESS_MAIN(TestTrainStep)
#include "test_train_step.moc"
