// A project's corpus made ready for training, once per cache folder: the corpus inputs expanded to
// files, the eval corpus checked before anything expensive, the tokenizer trained on a streamed sample
// (or the project's ready-made one), and the train and eval corpora tokenized into shards. Everything
// happens under the cache folder's PreparationLock, so two runs of one project (or the ranks of a job)
// started together prepare once and the others wait, then open what was published. Shared by
// training, `mixerlab data prepare`, evaluation and the analyses.
#pragma once
#include <atomic>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "core/config/project_config.h"
#include "core/data/corpus_sources.h"
#include "core/data/document_encoder.h"
#include "core/data/shard_preparation.h"

namespace mixerlab {

struct PreparedProjectData {
  std::filesystem::path tokenizer_path;
  std::filesystem::path train_data;  // prepared-data folder (manifest.json + shards)
  std::filesystem::path eval_data;   // empty when the eval split comes from the training corpus
};

struct ProjectDataOptions {
  NewlineMode newline = NewlineMode::Token;
  uint64_t shard_tokens = 0;  // 0: ShardPreparation's default
  unsigned threads = 0;       // 0: every core
  const std::atomic<bool>* stop = nullptr;
  std::function<void(const std::string&)> log;
  std::function<void(const PrepareProgress&)> on_progress;
};

// The corpus files of the project's train (or eval) input; a missing file or an empty glob throws
// MixerLabError naming corpus.train / corpus.eval.
std::vector<SourceFile> projectTrainSources(const ProjectConfig& project);
std::vector<SourceFile> projectEvalSources(const ProjectConfig& project);

// The project's tokenizer: tokenizer.file, or trained (or reused) under the cache folder's lock.
std::filesystem::path ensureProjectTokenizer(const ProjectConfig& project, const ProjectDataOptions& options);

// Everything above; throws PreparationStopped on a stop request (finished shards are kept).
PreparedProjectData prepareProjectData(const ProjectConfig& project, const ProjectDataOptions& options);

}  // namespace mixerlab
