// InfoNCE fine-tuning (see infonce_finetune.h).
#include "core/analysis/retrieval/infonce_finetune.h"

#include <random>

#include <torch/torch.h>

#include "core/analysis/analysis_model.h"
#include "core/analysis/retrieval/candidate_sampler.h"
#include "core/analysis/retrieval/retrieval_training.h"
#include "core/analysis/retrieval/text_embeddings.h"
#include "core/models/model_registry.h"
#include "core/runs/run_directory.h"
#include "core/train/checkpoint.h"
#include "core/train/lr_schedule.h"
#include "core/train/optimizer_step.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"

namespace mixerlab {
namespace {

// Embeddings with gradients: [B, D] at the position text_embeddings.h reads (or `from_end` >= 0).
at::Tensor embedWithGrad(AnalysisModel& m, const std::vector<std::string>& texts, int64_t from_end) {
  const int64_t context = m.model->config().context_length;
  if (from_end < 0) from_end = findArchitecture(m.model->config().arch).embedding_position_from_end;
  const bool left = m.train.padding_side != "right";
  auto ids = torch::full({static_cast<int64_t>(texts.size()), context}, m.padId(), torch::kLong);
  std::vector<int64_t> positions;
  for (size_t b = 0; b < texts.size(); ++b) {
    std::vector<int> encoded = m.encode(texts[b]);
    if (static_cast<int64_t>(encoded.size()) > context) encoded.resize(static_cast<size_t>(context));
    const int64_t n = static_cast<int64_t>(encoded.size()), offset = left ? context - n : 0;
    for (int64_t t = 0; t < n; ++t) ids[static_cast<int64_t>(b)][offset + t] = encoded[static_cast<size_t>(t)];
    positions.push_back(std::max<int64_t>(0, (left ? context - 1 : n - 1) - from_end));
  }
  const auto hidden = m.model->hiddenStates(ids);
  const auto index = torch::tensor(positions, torch::kLong).view({-1, 1, 1}).expand({-1, 1, hidden.size(2)});
  return hidden.gather(1, index).squeeze(1);
}

double heldOutTop1(AnalysisModel& m, const std::vector<StoryPair>& held_out, int64_t context, uint64_t seed,
                   int64_t from_end) {
  std::vector<std::string> summaries, texts;
  for (const auto& p : held_out) {
    summaries.push_back(p.summary);
    texts.push_back(p.story);
  }
  EmbeddingSettings embedding;
  embedding.from_end = from_end;
  m.model->eval();
  const auto q = embedTexts(m, summaries, embedding);
  const auto t = embedTexts(m, texts, embedding);
  m.model->train();
  return evaluateCosineRetrieval(q, t, context, seed).eval_top1;
}

}  // namespace

InfoNceSettings InfoNceSettings::research() {
  InfoNceSettings s;
  s.candidates = 7;
  s.temperature = 0.02;
  s.learning_rate = 1e-4;
  s.warmup_steps = 50;
  s.grad_accum_steps = 8;
  s.position_from_end = 1;
  return s;
}

std::filesystem::path infoNceFinetune(const ModelSource& base, const std::vector<StoryPair>& train,
                                      const std::vector<StoryPair>& held_out, const InfoNceSettings& s,
                                      const std::filesystem::path& out_dir,
                                      const std::function<void(const InfoNceProgress&)>& progress,
                                      const std::atomic<bool>* cancel) {
  if (!(s.temperature > 0)) throw MixerLabError("temperature must be > 0");
  if (s.candidates < 2 || s.steps < 1 || s.grad_accum_steps < 1) {
    throw MixerLabError("candidates must be >= 2, steps and grad_accum_steps >= 1");
  }
  if (base.untrained || !base.run_name.empty()) {
    throw MixerLabError("InfoNCE fine-tuning continues a trained checkpoint", "pass a checkpoint or run folder");
  }
  const std::filesystem::path base_dir = resolveCheckpointDir(base.path);
  AnalysisModel m = loadAnalysisModel(base);
  m.model->train();
  torch::manual_seed(s.seed);
  torch::optim::AdamW optimizer(m.model->parameters(), torch::optim::AdamWOptions(s.learning_rate));
  const c10::Device device = m.model->parameters().front().device();
  std::mt19937_64 rng(s.seed);
  const int64_t eval_context = std::min<int64_t>(s.candidates + 1, static_cast<int64_t>(held_out.size()));
  if (progress && eval_context >= 2) {  // the starting point, for comparison
    InfoNceProgress p;
    p.eval_top1 = heldOutTop1(m, held_out, eval_context, s.seed + 1, s.position_from_end);
    progress(p);
  }
  double loss_sum = 0;
  int64_t loss_steps = 0, step = 0;
  for (; step < s.steps; ++step) {
    if (cancel != nullptr && cancel->load()) break;
    // One micro-batch: a random summary against its story and s.candidates - 1 other stories.
    auto summary_loss = [&]() -> MicroBatchLoss {
      const size_t query = static_cast<size_t>(rng() % train.size());
      const CandidateSample sample = sampleCandidates(query, train.size(), s.candidates + 1, rng);
      std::vector<std::string> texts = {train[query].summary};
      for (size_t i : sample.candidates) texts.push_back(train[i].story);
      const auto embeddings = torch::nn::functional::normalize(embedWithGrad(m, texts, s.position_from_end),
                                                               torch::nn::functional::NormalizeFuncOptions().dim(1));
      const auto cosines = torch::matmul(embeddings.narrow(0, 1, s.candidates), embeddings[0]);  // [candidates]
      return {torch::nn::functional::cross_entropy((cosines / s.temperature).unsqueeze(0),
                                                   torch::tensor({sample.label}, torch::kLong)),
              1,
              {}};
    };
    const StepOutcome outcome = runOptimizerStep(
        m.model->parameters(), optimizer, summary_loss,
        {learningRateAt(step, s.learning_rate, s.warmup_steps, s.steps, "linear", 0.0), s.grad_accum_steps, 1.0},
        device);
    if (outcome.non_finite_loss) {
      throw MixerLabError("InfoNCE fine-tuning: the loss became " + std::to_string(*outcome.non_finite_loss) +
                              " at step " + std::to_string(step + 1),
                          "lower learning_rate (now " + std::to_string(s.learning_rate) + ") or raise temperature");
    }
    const double step_loss = outcome.loss;
    loss_sum += step_loss;
    ++loss_steps;
    const bool evaluate = (step + 1) % s.eval_every == 0 || step + 1 == s.steps;
    if (progress && (evaluate || (step + 1) % 10 == 0)) {
      InfoNceProgress p;
      p.step = step + 1;
      p.loss = loss_sum / static_cast<double>(loss_steps);
      if (evaluate && eval_context >= 2) {
        p.eval_top1 = heldOutTop1(m, held_out, eval_context, s.seed + 1, s.position_from_end);
      }
      progress(p);
      loss_sum = 0;
      loss_steps = 0;
    }
  }
  TrainerState state = readTrainerState(base_dir);
  state.step += step;
  nlohmann::json config = readCheckpointConfig(base_dir);
  config["infonce"] = {{"base_checkpoint", base_dir.string()},   {"steps", step},
                       {"temperature", s.temperature},           {"candidates", s.candidates},
                       {"grad_accum_steps", s.grad_accum_steps}, {"position_from_end", s.position_from_end},
                       {"learning_rate", s.learning_rate}};
  m.model->eval();
  return saveCheckpoint(RunPaths{out_dir}.checkpoints(), *m.model, optimizer, state, config,
                        readFile(checkpointTokenizerFile(base_dir)), 1);
}

}  // namespace mixerlab
