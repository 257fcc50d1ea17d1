// Corpus -> tokenizer -> token caches -> example sets for one run (see run_data.h).
#include "core/train/run_data.h"

#include "core/util/error.h"

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
  const std::string layout = t.batch_mode == "packed" ? "packed, separator " + t.pack_separator
                                                      : "padded " + t.padding_side + ", pad " + t.pad_token;
  return layout + ", newline " + t.newline;
}

// corpus.max_examples: the first `cap` documents (in file order) of a list ascending by index; 0 = all.
std::vector<size_t> firstDocuments(std::vector<size_t> documents, int64_t cap) {
  if (cap > 0 && documents.size() > static_cast<size_t>(cap)) documents.resize(static_cast<size_t>(cap));
  return documents;
}

}  // namespace

RunData prepareRunData(const ProjectConfig& project, const RunConfig& run, const LogFn& log) {
  RunData data;
  const auto cache_dir = project.cacheDirectory();
  const NewlineMode newline = parseNewlineMode(run.train.newline);
  bool reused = false;
  {
    // Read and hash the training corpus once for both caches (it can be gigabytes).
    const CorpusFile train_corpus = loadCorpusFile(project.corpus.train_path, project.corpus.format);
    if (!project.tokenizer.file.empty()) {  // a ready-made tokenizer (e.g. an imported run's)
      data.tokenizer_path = project.tokenizer.file;
      log("tokenizer (from tokenizer.file): " + data.tokenizer_path.string());
    } else {
      data.tokenizer_path = ensureTokenizer(train_corpus, project.tokenizer, cache_dir, &reused);
      log((reused ? "tokenizer (cached): " : "tokenizer trained: ") + data.tokenizer_path.string());
    }
    data.tokenizer = std::make_unique<Tokenizer>(Tokenizer::load(data.tokenizer_path));
    data.train_cache_path = ensureTokenCache(train_corpus, *data.tokenizer, cache_dir, &reused, newline);
    log((reused ? "token cache (cached): " : "token cache built: ") + data.train_cache_path.string());
  }
  if (data.tokenizer->vocabSize() != run.model.vocab_size) {
    throw MixerLabError("tokenizer " + data.tokenizer_path.string() + " has " +
                            std::to_string(data.tokenizer->vocabSize()) + " tokens but run \"" + run.name +
                            "\" expects vocab_size " + std::to_string(run.model.vocab_size),
                        project.tokenizer.file.empty() ? "delete " + cache_dir.string() + " to retrain the tokenizer"
                                                       : "set tokenizer.vocab_size to the file's vocabulary");
  }
  data.train_cache = std::make_unique<TokenCache>(TokenCache::open(data.train_cache_path));
  const BatchingSettings batching = batchingFor(run, *data.tokenizer);

  if (project.corpus.eval_path.empty()) {
    auto [train_docs, eval_docs] =
        splitDocuments(data.train_cache->numDocuments(), project.corpus.eval_fraction, project.corpus.split_seed);
    if (eval_docs.empty()) {
      throw MixerLabError(project.file.string() + ": corpus.eval_fraction leaves no evaluation documents",
                          "raise corpus.eval_fraction or set corpus.eval to a separate file");
    }
    data.train_examples = std::make_unique<ExampleSet>(
        *data.train_cache, firstDocuments(train_docs, project.corpus.max_examples), batching);
    data.eval_examples = std::make_unique<ExampleSet>(*data.train_cache, eval_docs, batching);
  } else {
    std::vector<size_t> all_train(data.train_cache->numDocuments());
    for (size_t i = 0; i < all_train.size(); ++i) all_train[i] = i;
    data.train_examples = std::make_unique<ExampleSet>(
        *data.train_cache, firstDocuments(all_train, project.corpus.max_examples), batching);
    const auto eval_cache_path =
        ensureTokenCache(project.corpus.eval_path, project.corpus.format, *data.tokenizer, cache_dir, &reused, newline);
    data.eval_cache = std::make_unique<TokenCache>(TokenCache::open(eval_cache_path));
    std::vector<size_t> all_eval(data.eval_cache->numDocuments());
    for (size_t i = 0; i < all_eval.size(); ++i) all_eval[i] = i;
    data.eval_examples = std::make_unique<ExampleSet>(*data.eval_cache, all_eval, batching);
  }
  if (project.corpus.max_examples > 0) {
    log("corpus.max_examples: training on the first " + std::to_string(project.corpus.max_examples) + " documents of " +
        project.corpus.train_path.string());
  }
  log("examples: " + std::to_string(data.train_examples->numExamples()) + " train, " +
      std::to_string(data.eval_examples->numExamples()) + " eval, context " + std::to_string(batching.context_length) +
      " (" + layoutDescription(run) + ")");
  return data;
}

}  // namespace mixerlab
