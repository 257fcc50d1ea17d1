// Sentence embeddings from a language model's last hidden layer (docs/retrieval.md): each text is encoded as
// the run's training data, padded to the context on the run's side, and the last block's output (an
// autoencoder's encoder output: LanguageModel::embeddingStates) is read at one position: T-2 for masked mixers (their
// last position's output is never trained; the research reads the second-to-last), T-1 for the other families. With
// right padding the position counts back from the last real token instead. Embeddings are cached on disk, keyed by the
// model weights' hash, the texts and the settings, so a changed checkpoint never reuses stale vectors.
#pragma once
#include <atomic>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>

#include "core/analysis/analysis_model.h"

namespace mixerlab {

// Which states embeddings are read from, as stored in caches and retrieval.json: 1 = hiddenStates() for
// every family (autoencoders: the decoder's output, a mistake), 2 = embeddingStates(). Folders and
// cache files of another version are built again.
constexpr int kEmbeddingStatesVersion = 2;

struct EmbeddingSettings {
  int64_t from_end =
      -1;  // which position, counted from the last real token: -1 = the family's default (its registry entry)
  int64_t batch_size = 16;
  // Read after the family's final norm (LanguageModel::finalNormStates: Hugging Face's
  // hidden_states[-1] of a Llama, the paper-era transformer embedding at T-1; the later research code
  // read the last layer before it at -2). Families without a final norm read the same states.
  bool after_final_norm = false;
  // Where the model runs while embedding (cpu, cuda, cuda:N, auto); not part of the dataset: the
  // embeddings come back as CPU float32 from any device.
  std::string device = "cpu";
};

// [N, D] float32 CPU. `progress(done, total)` after every batch; `cancel` is polled between batches
// (a cancelled call throws MixerLabError).
at::Tensor embedTexts(AnalysisModel& model, const std::vector<std::string>& texts, const EmbeddingSettings& settings,
                      const std::function<void(size_t, size_t)>& progress = {},
                      const std::atomic<bool>* cancel = nullptr);

// The same through the cache folder: `model_key` identifies the weights (see modelKey()).
at::Tensor cachedEmbeddings(AnalysisModel& model, const std::string& model_key, const std::vector<std::string>& texts,
                            const EmbeddingSettings& settings, const std::filesystem::path& cache_dir,
                            bool* reused = nullptr, const std::function<void(size_t, size_t)>& progress = {},
                            const std::atomic<bool>* cancel = nullptr);

// A key for a model source: the hash of the checkpoint's weight file (untrained: its config + seed).
std::string modelKey(const ModelSource& source);

}  // namespace mixerlab
