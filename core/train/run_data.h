// Everything a run needs from its corpus: the (cached) tokenizer, token caches for the train and
// eval corpora, and the train/eval example sets laid out for the run's context and batching.
// Shared by training, `mixerlab eval` and later the GUI.
#pragma once
#include <functional>
#include <memory>
#include <string>

#include "core/config/project_config.h"
#include "core/data/batching.h"
#include "core/data/token_cache.h"
#include "core/data/tokenizer.h"

namespace mixerlab {

struct RunData {
  std::filesystem::path tokenizer_path, train_cache_path;
  std::unique_ptr<Tokenizer> tokenizer;
  std::unique_ptr<TokenCache> train_cache, eval_cache;  // eval_cache null when split from train
  std::unique_ptr<ExampleSet> train_examples, eval_examples;
};

using LogFn = std::function<void(const std::string&)>;

BatchingSettings batchingFor(const RunConfig& run, const Tokenizer& tokenizer);

// Trains or reuses the tokenizer and token caches under the project's cache folder.
RunData prepareRunData(const ProjectConfig& project, const RunConfig& run, const LogFn& log);

}  // namespace mixerlab
