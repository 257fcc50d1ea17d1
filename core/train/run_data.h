// Everything a run needs from its corpus: the tokenizer, the memory-mapped token shards of the train
// and eval corpora, and the train/eval example sets laid out for the run's context and batching.
// Preparing (project_data.h) may read the raw corpus; opening reads only the tokenizer and the shards,
// which is all a data-parallel rank other than the preparer does. Shared by training and `mixerlab eval`.
#pragma once
#include <functional>
#include <memory>
#include <string>

#include "core/config/project_config.h"
#include "core/data/batching.h"
#include "core/data/token_cache.h"
#include "core/data/tokenizer.h"
#include "core/train/project_data.h"

namespace mixerlab {

struct RunData {
  std::filesystem::path tokenizer_path, train_data;
  std::unique_ptr<Tokenizer> tokenizer;
  std::string tokenizer_bytes;  // the tokenizer file as read when the data was opened (checkpoints copy it)
  std::unique_ptr<TokenCache> train_cache, eval_cache;  // eval_cache null when split from train
  std::unique_ptr<ExampleSet> train_examples, eval_examples;
};

using LogFn = std::function<void(const std::string&)>;

BatchingSettings batchingFor(const RunConfig& run, const Tokenizer& tokenizer);

// The eval split and the training documents of a corpus of num_documents documents: corpus.eval_documents
// > 0 takes the first N documents as eval, else a seeded eval_fraction split; corpus.max_examples then
// keeps the first N training documents. Throws MixerLabError when the eval split is empty.
std::pair<std::vector<size_t>, std::vector<size_t>> trainEvalDocuments(const ProjectConfig& project,
                                                                       size_t num_documents);

// Padded rows keep each document's first context_length tokens: the share of a corpus's tokens
// (documents of these lengths) that training sees; 1 for an empty corpus.
double paddedTokensKeptFraction(const std::vector<size_t>& document_lengths, int64_t context_length);
// Below it, a padded run's log warns that most of the corpus is never trained on (one huge
// document, say: a CSV read as one text), naming the settings that would use it.
inline constexpr double kPaddedKeptWarnFraction = 0.5;

// Opens prepared data for a run (checks the tokenizer's vocabulary against the run's).
RunData openRunData(const ProjectConfig& project, const RunConfig& run, const PreparedProjectData& prepared,
                    const LogFn& log);

// prepareProjectData (with the run's newline mode), then openRunData.
RunData prepareRunData(const ProjectConfig& project, const RunConfig& run, const LogFn& log,
                       const std::atomic<bool>* stop = nullptr);

}  // namespace mixerlab
