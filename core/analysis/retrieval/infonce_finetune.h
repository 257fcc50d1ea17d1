// InfoNCE fine-tuning of a language model for retrieval (docs/retrieval.md): training continues on the model
// itself. Each step holds one summary and `candidates` texts (its own text in a random slot, the
// others drawn from the rest of the corpus); the loss is the cross-entropy of the temperature-scaled
// cosines between the summary's embedding and each text's (embeddings as text_embeddings.h reads
// them), so the matching text must win. The result is a normal checkpoint folder, usable by
// `retrieval build` and every other analysis; held-out cosine top-1 is measured as it trains.
#pragma once
#include <atomic>
#include <filesystem>
#include <functional>
#include <optional>
#include <vector>

#include "core/analysis/model_source.h"
#include "core/data/story_pairs.h"

namespace mixerlab {

struct InfoNceSettings {
  int64_t candidates = 8;     // texts scored against each summary (the summary is one more row)
  double temperature = 0.02;  // tau
  double learning_rate = 1e-4;
  int64_t warmup_steps = 50;
  int64_t steps = 200;           // optimizer steps
  int64_t grad_accum_steps = 1;  // summaries (each with its candidates) per optimizer step
  int64_t eval_every = 50;       // held-out cosine top-1 every N steps (and at the end)
  // Embedding position before each text's last token: -1 = the family default (text_embeddings.h:
  // mixers 1, others 0); the research reads index -2 (1) for mixers and transformers alike.
  int64_t position_from_end = -1;
  uint64_t seed = 1;

  // The research code's InfoNCE training (docs/retrieval.md): rows of 8 (the summary and 7 texts), tau 0.02,
  // lr 1e-4, warm-up 50, gradient accumulation 8, embeddings at index -2 for every family.
  static InfoNceSettings research();
};

struct InfoNceProgress {
  int64_t step = 0;
  double loss = 0;                  // mean over the steps since the previous report
  std::optional<double> eval_top1;  // at evaluation steps
};

// Returns the new checkpoint folder (out_dir/checkpoints/step-<N>). Throws MixerLabError for bad
// settings or too few pairs.
std::filesystem::path infoNceFinetune(const ModelSource& base, const std::vector<StoryPair>& train,
                                      const std::vector<StoryPair>& held_out, const InfoNceSettings& settings,
                                      const std::filesystem::path& out_dir,
                                      const std::function<void(const InfoNceProgress&)>& progress = {},
                                      const std::atomic<bool>* cancel = nullptr);

}  // namespace mixerlab
