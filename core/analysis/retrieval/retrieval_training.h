// Training and evaluating the retrieval model (docs/retrieval.md): every epoch each training query gets a
// fresh Algorithm-1 sample (c-1 candidates, one positive), the RetrievalMixer scores the candidates
// and cross-entropy trains it (AdamW, linear warmup then linear decay). After every epoch the
// held-out pairs are scored on candidate sets drawn once from the held-out targets with a fixed
// seed, so epochs are compared on the same sets: eval cross-entropy, top-1 and top-5 accuracy.
// The research's failure mode, a model that never breaks symmetry, shows as an eval loss stuck at
// ln(c-1).
#pragma once
#include <atomic>
#include <functional>
#include <optional>
#include <vector>

#include <ATen/core/Tensor.h>

#include "core/analysis/retrieval/retrieval_mixer.h"

namespace mixerlab {

// Defaults suit a small corpus on a CPU; research() gives the research's training (docs/retrieval.md).
struct RetrievalTrainSettings {
  int64_t context = 32;  // c: the query plus c-1 candidates
  int64_t layers = 8;
  int64_t batch_size = 32;
  double learning_rate = 1e-4;
  int64_t warmup_steps = 50;
  int64_t epochs = 20;
  bool with_replacement = false;  // negatives drawn with replacement
  double weight_decay = 0.01;     // AdamW's decoupled weight decay (LibTorch's default)
  double grad_clip_norm = 0;      // global gradient-norm clip; <= 0: none
  uint64_t seed = 1;

  // The research's retrieval training at context c: HF Trainer defaults (AdamW without weight decay,
  // gradient clip 1.0), warm-up 500, 200 epochs, a global batch of 512 (128 on each of 4 GPUs), and
  // negatives drawn with replacement at c = 128 (docs/fidelity.md cites the scripts).
  static RetrievalTrainSettings research(int64_t context);

  // The learning rate of optimizer step `step` (1-based) of `total_steps`: the trainer's linear
  // schedule (lr_schedule.h), warm-up to the peak, then decay towards 0 at the end.
  double learningRateOfStep(int64_t step, int64_t total_steps) const;
};

struct RetrievalEpoch {
  int64_t epoch = 0;  // 1-based
  int64_t step = 0;   // optimizer steps so far
  double train_loss = 0, eval_loss = 0, eval_top1 = 0, eval_top5 = 0;
};

struct RetrievalTrainResult {
  std::vector<RetrievalEpoch> epochs;
  double chance_top1 = 0;  // 1 / (c - 1)
  bool cancelled = false;
  // The research's metric: the lowest held-out cross-entropy over the epochs, and that epoch's top-1.
  std::optional<RetrievalEpoch> best() const;
};

// queries / targets: [N, D] embeddings, row n of each a pair. Throws MixerLabError on shape
// mismatches or too few pairs for the context. `model` receives the trained weights when given.
RetrievalTrainResult trainRetrievalModel(const at::Tensor& train_queries, const at::Tensor& train_targets,
                                         const at::Tensor& test_queries, const at::Tensor& test_targets,
                                         const RetrievalTrainSettings& settings,
                                         const std::function<void(const RetrievalEpoch&)>& on_epoch = {},
                                         const std::atomic<bool>* cancel = nullptr, RetrievalMixer* model = nullptr);

// Cosine-similarity retrieval on the same kind of candidate sets (no trained model): each query's
// candidates are ranked by cosine with it (eval_loss is the cross-entropy of the raw cosines).
RetrievalEpoch evaluateCosineRetrieval(const at::Tensor& queries, const at::Tensor& targets, int64_t context,
                                       uint64_t seed);

// Held-out evaluation of a trained model on candidate sets drawn with `seed`.
RetrievalEpoch evaluateRetrievalModel(RetrievalMixer& model, const at::Tensor& queries, const at::Tensor& targets,
                                      int64_t context, uint64_t seed);

}  // namespace mixerlab
