// Corpus -> tokenizer -> token caches -> example sets for one run (see run_data.h).
#include "core/train/run_data.h"

#include "core/util/atomic_file.h"
#include "core/util/error.h"

#include <algorithm>
#include <cstdio>
#include <tuple>

namespace mixerlab {

BatchingSettings batchingFor(const RunConfig& run, const Tokenizer& tokenizer) {
  BatchingSettings s;
  s.context_length = run.model.context_length;
  s.batch_size = run.train.batch_size;
  s.mode = parseBatchMode(run.train.batch_mode);
  s.padding_side = parsePaddingSide(run.train.padding_side);
  s.eos_id = tokenizer.eosId();
  s.pad_id = run.train.pad_token == "eos" ? s.eos_id : tokenizer.padId();
  if (s.pad_id < 0) {
    throw MixerLabError("run \"" + run.name + "\": train.pad_token is \"" + run.train.pad_token + "\" but tokenizer " +
                            tokenizer.modelPath().string() + " has no such token",
                        "set train.pad_token to \"eos\"");
  }
  s.pack_separator = parsePackSeparator(run.train.pack_separator);
  return s;
}

namespace {

std::string layoutDescription(const RunConfig& run) {
  const TrainConfig& t = run.train;
  const std::string layout = t.batch_mode == "packed"    ? "packed, separator " + t.pack_separator
                             : t.batch_mode == "chunked" ? std::string("chunked per document, remainders dropped")
                                                         : "padded " + t.padding_side + ", pad " + t.pad_token;
  return layout + ", newline " + t.newline;
}

// corpus.max_examples: the first `cap` documents (in file order) of a list ascending by index; 0 = all.
std::vector<size_t> firstDocuments(std::vector<size_t> documents, int64_t cap) {
  if (cap > 0 && documents.size() > static_cast<size_t>(cap)) documents.resize(static_cast<size_t>(cap));
  return documents;
}

}  // namespace

double paddedTokensKeptFraction(const std::vector<size_t>& document_lengths, int64_t context_length) {
  double total = 0, kept = 0;
  for (const size_t length : document_lengths) {
    total += static_cast<double>(length);
    kept += static_cast<double>(std::min<size_t>(length, static_cast<size_t>(context_length)));
  }
  return total > 0 ? kept / total : 1.0;
}

namespace {
void warnWhenPaddingDropsMostTokens(const ProjectConfig& project, const RunConfig& run, const TokenCache& cache,
                                    const std::vector<size_t>& train_docs, const LogFn& log) {
  if (run.train.batch_mode != "padded") return;
  std::vector<size_t> lengths;
  lengths.reserve(train_docs.size());
  for (const size_t d : train_docs) lengths.push_back(cache.document(d).size);
  const double kept = paddedTokensKeptFraction(lengths, run.model.context_length);
  if (kept >= kPaddedKeptWarnFraction) return;
  char percent[16];
  std::snprintf(percent, sizeof percent, "%.1f%%", 100.0 * (1.0 - kept));
  log("warning: train.batch_mode \"padded\" keeps the first " + std::to_string(run.model.context_length) +
      " tokens of each document, so " + percent + " of the training tokens (" + std::to_string(train_docs.size()) +
      " document(s) of " + project.corpus.train_path.string() + ", corpus.format \"" +
      corpusFormatName(project.corpus.format) +
      "\") are never trained on; fix: set train.batch_mode to \"packed\" or \"chunked\", or corpus.format to "
      "the layout that separates the documents");
}
}  // namespace

std::pair<std::vector<size_t>, std::vector<size_t>> trainEvalDocuments(const ProjectConfig& project,
                                                                       size_t num_documents) {
  const CorpusConfig& corpus = project.corpus;
  std::vector<size_t> train_docs, eval_docs;
  if (corpus.eval_documents > 0) {
    const size_t n_eval = std::min(num_documents, static_cast<size_t>(corpus.eval_documents));
    for (size_t i = 0; i < num_documents; ++i) (i < n_eval ? eval_docs : train_docs).push_back(i);
    if (train_docs.empty()) {
      throw MixerLabError(project.file.string() + ": corpus.eval_documents " + std::to_string(corpus.eval_documents) +
                              " takes every one of the corpus's " + std::to_string(num_documents) +
                              " documents, leaving none to train on",
                          "lower corpus.eval_documents");
    }
  } else {
    std::tie(train_docs, eval_docs) = splitDocuments(num_documents, corpus.eval_fraction, corpus.split_seed);
  }
  if (eval_docs.empty()) {
    throw MixerLabError(project.file.string() + ": corpus.eval_fraction leaves no evaluation documents",
                        "raise corpus.eval_fraction, set corpus.eval_documents or set corpus.eval to a separate file");
  }
  return {firstDocuments(std::move(train_docs), corpus.max_examples), std::move(eval_docs)};
}

namespace {
std::vector<size_t> allDocuments(size_t count) {
  std::vector<size_t> all(count);
  for (size_t i = 0; i < count; ++i) all[i] = i;
  return all;
}
}  // namespace

RunData openRunData(const ProjectConfig& project, const RunConfig& run, const PreparedProjectData& prepared,
                    const LogFn& log) {
  RunData data;
  data.tokenizer_path = prepared.tokenizer_path;
  data.tokenizer_bytes = readFile(data.tokenizer_path);
  data.tokenizer = std::make_unique<Tokenizer>(Tokenizer::load(data.tokenizer_path));
  if (data.tokenizer->vocabSize() != run.model.vocab_size) {
    throw MixerLabError(
        "tokenizer " + data.tokenizer_path.string() + " has " + std::to_string(data.tokenizer->vocabSize()) +
            " tokens but run \"" + run.name + "\" expects vocab_size " + std::to_string(run.model.vocab_size),
        project.tokenizer.file.empty() ? "delete " + project.cacheDirectory().string() + " to retrain the tokenizer"
                                       : "set tokenizer.vocab_size to the file's vocabulary");
  }
  data.train_data = prepared.train_data;
  data.train_cache = std::make_unique<TokenCache>(TokenCache::open(prepared.train_data));
  const BatchingSettings batching = batchingFor(run, *data.tokenizer);
  if (prepared.eval_data.empty()) {
    auto [train_docs, eval_docs] = trainEvalDocuments(project, data.train_cache->numDocuments());
    warnWhenPaddingDropsMostTokens(project, run, *data.train_cache, train_docs, log);
    data.train_examples = std::make_unique<ExampleSet>(*data.train_cache, std::move(train_docs), batching);
    data.eval_examples = std::make_unique<ExampleSet>(*data.train_cache, std::move(eval_docs), batching);
  } else {
    std::vector<size_t> train_docs =
        firstDocuments(allDocuments(data.train_cache->numDocuments()), project.corpus.max_examples);
    warnWhenPaddingDropsMostTokens(project, run, *data.train_cache, train_docs, log);
    data.train_examples = std::make_unique<ExampleSet>(*data.train_cache, std::move(train_docs), batching);
    data.eval_cache = std::make_unique<TokenCache>(TokenCache::open(prepared.eval_data));
    data.eval_examples =
        std::make_unique<ExampleSet>(*data.eval_cache, allDocuments(data.eval_cache->numDocuments()), batching);
  }
  if (project.corpus.max_examples > 0) {
    log("corpus.max_examples: training on the first " + std::to_string(project.corpus.max_examples) + " documents of " +
        project.corpus.train_path.string());
  }
  if (project.corpus.eval_documents > 0 && prepared.eval_data.empty()) {
    log("corpus.eval_documents: the first " + std::to_string(project.corpus.eval_documents) +
        " documents are the eval split");
  }
  log("examples: " + std::to_string(data.train_examples->numExamples()) + " train, " +
      std::to_string(data.eval_examples->numExamples()) + " eval, context " + std::to_string(batching.context_length) +
      " (" + layoutDescription(run) + "); " + std::to_string(data.train_cache->numTokens()) + " tokens in " +
      std::to_string(data.train_cache->numShards()) + " shard(s) of " +
      std::to_string(data.train_cache->tokenBytes() * 8) + "-bit ids");
  return data;
}

RunData prepareRunData(const ProjectConfig& project, const RunConfig& run, const LogFn& log,
                       const std::atomic<bool>* stop) {
  ProjectDataOptions options;
  options.newline = parseNewlineMode(run.train.newline);
  options.stop = stop;
  options.log = log;
  return openRunData(project, run, prepareProjectData(project, options), log);
}

}  // namespace mixerlab
