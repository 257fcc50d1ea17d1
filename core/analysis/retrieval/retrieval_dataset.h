// A retrieval dataset folder (docs/retrieval.md): (summary, story) pairs embedded by one language model and
// split into training and held-out items, as the research saved query_train / query_test /
// target_train / target_test. `mixerlab retrieval build` writes it; train / eval / query read it.
//   pairs.jsonl                the pairs, in order (held-out items last)
//   embeddings.safetensors     query_train, query_test, target_train, target_test: [N, D] fp32
//   retrieval.json             the embedding model, its key, counts, width, embedding position
//   cache/                     embedding cache (keyed by model weights, texts and settings)
#pragma once
#include <atomic>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>

#include "core/analysis/model_source.h"
#include "core/analysis/retrieval/text_embeddings.h"
#include "core/data/story_pairs.h"

namespace mixerlab {

struct RetrievalDataset {
  std::filesystem::path dir;
  ModelSource source;  // the embedding model
  std::string model_label;
  std::string model_key;
  std::vector<StoryPair> pairs;
  int64_t train_count = 0;  // pairs[0, train_count) train, the rest held out
  EmbeddingSettings embedding;
  int embedding_states = kEmbeddingStatesVersion;  // 1 in folders written before the version was recorded
  at::Tensor query_train, query_test, target_train, target_test;
};

// Embeds and writes the folder (files written to temporary names, then renamed). The last
// ceil(test_fraction * N) pairs are held out (at least one each side).
RetrievalDataset buildRetrievalDataset(const ModelSource& source, const std::vector<StoryPair>& pairs,
                                       double test_fraction, const EmbeddingSettings& embedding,
                                       const std::filesystem::path& dir,
                                       const std::function<void(size_t, size_t)>& progress = {},
                                       const std::atomic<bool>* cancel = nullptr);

// Throws MixerLabError naming the folder and the missing file.
RetrievalDataset loadRetrievalDataset(const std::filesystem::path& dir);

}  // namespace mixerlab
