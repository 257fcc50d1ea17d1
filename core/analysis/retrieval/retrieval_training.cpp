// Retrieval model training (see retrieval_training.h).
#include "core/analysis/retrieval/retrieval_training.h"

#include <cmath>
#include <random>

#include <torch/torch.h>

#include "core/analysis/retrieval/candidate_sampler.h"
#include "core/analysis/retrieval/cosine_retrieval.h"
#include "core/train/lr_schedule.h"
#include "core/train/optimizer_step.h"
#include "core/util/error.h"

namespace mixerlab {
namespace {

// Samples [B, c, D] and labels [B] for the given queries.
std::pair<at::Tensor, at::Tensor> buildBatch(const at::Tensor& queries, const at::Tensor& targets,
                                             const std::vector<size_t>& rows, int64_t context, std::mt19937_64& rng,
                                             bool with_replacement) {
  std::vector<int64_t> index, labels;
  std::vector<at::Tensor> samples;
  for (size_t n : rows) {
    const CandidateSample s = sampleCandidates(n, static_cast<size_t>(targets.size(0)), context, rng, with_replacement);
    std::vector<int64_t> ids(s.candidates.begin(), s.candidates.end());
    samples.push_back(
        torch::cat({queries[static_cast<int64_t>(n)].unsqueeze(0), targets.index_select(0, torch::tensor(ids))}, 0));
    labels.push_back(s.label);
  }
  return {torch::stack(samples), torch::tensor(labels, torch::kLong)};
}

void checkPairs(const at::Tensor& q, const at::Tensor& t, const char* what) {
  if (q.dim() != 2 || t.dim() != 2 || q.sizes() != t.sizes()) {
    throw MixerLabError(std::string(what) + " queries and targets must both be [N, D] of the same shape");
  }
}

}  // namespace

RetrievalEpoch evaluateRetrievalModel(RetrievalMixer& model, const at::Tensor& queries, const at::Tensor& targets,
                                      int64_t context, uint64_t seed) {
  torch::NoGradGuard no_grad;
  model->eval();
  std::mt19937_64 rng(seed);
  RetrievalEpoch e;
  std::vector<at::Tensor> all_scores;
  std::vector<int64_t> all_labels;
  double loss_sum = 0;
  const size_t n = static_cast<size_t>(queries.size(0));
  for (size_t first = 0; first < n; first += 64) {
    std::vector<size_t> rows;
    for (size_t i = first; i < std::min(n, first + 64); ++i) rows.push_back(i);
    auto [samples, labels] = buildBatch(queries, targets, rows, context, rng, false);
    const auto scores = model->forward(samples);
    loss_sum += torch::nn::functional::cross_entropy(scores, labels).item<double>() * static_cast<double>(rows.size());
    all_scores.push_back(scores);
    for (int64_t i = 0; i < labels.size(0); ++i) all_labels.push_back(labels[i].item<int64_t>());
  }
  const auto scores = torch::cat(all_scores, 0);
  e.eval_loss = loss_sum / static_cast<double>(n);
  e.eval_top1 = topKAccuracy(scores, all_labels, 1);
  e.eval_top5 = topKAccuracy(scores, all_labels, 5);
  model->train();
  return e;
}

RetrievalEpoch evaluateCosineRetrieval(const at::Tensor& queries, const at::Tensor& targets, int64_t context,
                                       uint64_t seed) {
  torch::NoGradGuard no_grad;
  std::mt19937_64 rng(seed);
  namespace F = torch::nn::functional;
  std::vector<size_t> rows(static_cast<size_t>(queries.size(0)));
  for (size_t i = 0; i < rows.size(); ++i) rows[i] = i;
  auto [samples, labels] = buildBatch(queries, targets, rows, context, rng, false);
  const auto normed = F::normalize(samples, F::NormalizeFuncOptions().dim(2));
  const auto scores = torch::matmul(normed.narrow(1, 1, context - 1), normed.select(1, 0).unsqueeze(-1)).squeeze(-1);
  std::vector<int64_t> label_list;
  for (int64_t i = 0; i < labels.size(0); ++i) label_list.push_back(labels[i].item<int64_t>());
  RetrievalEpoch e;
  e.eval_loss = F::cross_entropy(scores, labels).item<double>();
  e.eval_top1 = topKAccuracy(scores, label_list, 1);
  e.eval_top5 = topKAccuracy(scores, label_list, 5);
  return e;
}

RetrievalTrainSettings RetrievalTrainSettings::research(int64_t context) {
  RetrievalTrainSettings s;
  s.context = context;
  s.layers = 8;
  s.batch_size = 512;
  s.learning_rate = 1e-4;
  s.warmup_steps = 500;
  s.epochs = 200;
  s.with_replacement = context >= 128;
  s.weight_decay = 0;
  s.grad_clip_norm = 1.0;
  return s;
}

std::optional<RetrievalEpoch> RetrievalTrainResult::best() const {
  std::optional<RetrievalEpoch> lowest;
  for (const RetrievalEpoch& e : epochs) {
    if (!lowest || e.eval_loss < lowest->eval_loss) lowest = e;
  }
  return lowest;
}

double RetrievalTrainSettings::learningRateOfStep(int64_t step, int64_t total_steps) const {
  return learningRateAt(step - 1, learning_rate, warmup_steps, total_steps, "linear", 0.0);
}

RetrievalTrainResult trainRetrievalModel(const at::Tensor& train_queries, const at::Tensor& train_targets,
                                         const at::Tensor& test_queries, const at::Tensor& test_targets,
                                         const RetrievalTrainSettings& s,
                                         const std::function<void(const RetrievalEpoch&)>& on_epoch,
                                         const std::atomic<bool>* cancel, RetrievalMixer* out_model) {
  checkPairs(train_queries, train_targets, "training");
  checkPairs(test_queries, test_targets, "held-out");
  if (train_queries.size(1) != test_queries.size(1))
    throw MixerLabError("training and held-out embeddings differ in width");
  if (s.epochs < 1 || s.batch_size < 1 || s.layers < 1)
    throw MixerLabError("epochs, batch_size and layers must be >= 1");
  if (!(s.weight_decay >= 0)) throw MixerLabError("weight_decay must be >= 0");
  torch::manual_seed(s.seed);
  RetrievalMixer model(s.context, train_queries.size(1), s.layers);
  model->train();
  torch::optim::AdamW optimizer(model->parameters(),
                                torch::optim::AdamWOptions(s.learning_rate).weight_decay(s.weight_decay));
  const size_t n = static_cast<size_t>(train_queries.size(0));
  const int64_t steps_per_epoch =
      static_cast<int64_t>((n + static_cast<size_t>(s.batch_size) - 1) / static_cast<size_t>(s.batch_size));
  const int64_t total_steps = steps_per_epoch * s.epochs;
  std::mt19937_64 rng(s.seed);
  RetrievalTrainResult result;
  result.chance_top1 = 1.0 / static_cast<double>(s.context - 1);
  int64_t step = 0;
  for (int64_t epoch = 1; epoch <= s.epochs; ++epoch) {
    std::vector<size_t> order(n);
    for (size_t i = 0; i < n; ++i) order[i] = i;
    std::shuffle(order.begin(), order.end(), rng);
    double loss_sum = 0;
    for (size_t first = 0; first < n; first += static_cast<size_t>(s.batch_size)) {
      if (cancel != nullptr && cancel->load()) {
        result.cancelled = true;
        break;
      }
      const std::vector<size_t> rows(
          order.begin() + static_cast<std::ptrdiff_t>(first),
          order.begin() + static_cast<std::ptrdiff_t>(std::min(n, first + static_cast<size_t>(s.batch_size))));
      auto [samples, labels] = buildBatch(train_queries, train_targets, rows, s.context, rng, s.with_replacement);
      ++step;
      auto batch_loss = [&, &samples = samples, &labels = labels] {
        return MicroBatchLoss{torch::nn::functional::cross_entropy(model->forward(samples), labels),
                              static_cast<int64_t>(rows.size()),
                              {}};
      };
      const StepOutcome outcome =
          runOptimizerStep(model->parameters(), optimizer, batch_loss,
                           {s.learningRateOfStep(step, total_steps), 1, s.grad_clip_norm}, samples.device());
      if (outcome.non_finite_loss) {
        throw MixerLabError("retrieval training: the loss became " + std::to_string(*outcome.non_finite_loss) +
                                " at step " + std::to_string(step) + " (epoch " + std::to_string(epoch) + ")",
                            "lower learning_rate (now " + std::to_string(s.learning_rate) + ")");
      }
      loss_sum += outcome.loss * static_cast<double>(rows.size());
    }
    if (result.cancelled) break;
    RetrievalEpoch e = evaluateRetrievalModel(model, test_queries, test_targets, s.context, s.seed + 1);
    e.epoch = epoch;
    e.step = step;
    e.train_loss = loss_sum / static_cast<double>(n);
    result.epochs.push_back(e);
    if (on_epoch) on_epoch(e);
  }
  if (out_model != nullptr) *out_model = model;
  return result;
}

}  // namespace mixerlab
