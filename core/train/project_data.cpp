// A project's tokenizer and token shards, prepared once under the cache folder's lock (see project_data.h).
#include "core/train/project_data.h"

#include "core/data/document_stream.h"
#include "core/data/preparation_lock.h"
#include "core/data/token_shard_file.h"
#include "core/data/tokenizer_sample.h"
#include "core/util/error.h"

namespace mixerlab {
namespace fs = std::filesystem;

namespace {

PrepareLimits limitsFor(const ProjectConfig& project, const ProjectDataOptions& options) {
  PrepareLimits limits;
  limits.memory_bytes = static_cast<uint64_t>(project.corpus.memory_mb) << 20;
  limits.threads = options.threads;
  limits.stop = options.stop;
  limits.log = options.log;
  limits.on_progress = options.on_progress;
  return limits;
}

ShardPreparation shardPreparationFor(const ProjectConfig& project, std::vector<SourceFile> sources,
                                     const ProjectDataOptions& options) {
  ShardPreparation preparation;
  preparation.sources = std::move(sources);
  preparation.json_field = project.corpus.json_field;
  preparation.newline = options.newline;
  if (options.shard_tokens > 0) preparation.shard_tokens = options.shard_tokens;
  return preparation;
}

// Reads the eval corpus through (it is small next to the training corpus): a missing, malformed or
// empty eval file is reported before the tokenizer is trained or any shard is written.
void checkEvalCorpus(const ProjectConfig& project, const std::vector<SourceFile>& sources,
                     const PrepareLimits& limits) {
  std::string document;
  int64_t documents = 0;
  for (const SourceFile& source : sources) {
    DocumentStream stream(source, project.corpus.json_field, limits.max_document_bytes);
    while (stream.next(document)) ++documents;
  }
  if (documents == 0) {
    throw MixerLabError("the eval corpus " + project.corpus.eval_path.string() + " holds no documents (read as " +
                            corpusFormatName(sources.front().format) + ")",
                        "check corpus.eval and corpus.format in " + project.file.string());
  }
}

}  // namespace

std::vector<SourceFile> projectTrainSources(const ProjectConfig& project) {
  try {
    return expandCorpusSources({project.corpus.train_path.string()}, project.corpus.format, project.directory());
  } catch (const MixerLabError& e) {
    throw MixerLabError("corpus.train of " + project.file.string() + ": " + e.problem(), e.fix());
  }
}

std::vector<SourceFile> projectEvalSources(const ProjectConfig& project) {
  if (project.corpus.eval_path.empty()) return {};
  try {
    return expandCorpusSources({project.corpus.eval_path.string()}, project.corpus.format, project.directory());
  } catch (const MixerLabError& e) {
    throw MixerLabError("corpus.eval of " + project.file.string() + ": " + e.problem(), e.fix());
  }
}

fs::path ensureProjectTokenizer(const ProjectConfig& project, const ProjectDataOptions& options) {
  if (!project.tokenizer.file.empty()) return project.tokenizer.file;
  const PrepareLimits limits = limitsFor(project, options);
  const std::vector<SourceFile> sources = projectTrainSources(project);
  const PreparationLock lock(project.cacheDirectory(), options.stop, options.log);
  bool reused = false;
  const fs::path path =
      ensureTokenizer(sources, project.corpus.json_field, project.tokenizer, project.cacheDirectory(), limits, &reused);
  if (options.log) options.log((reused ? "tokenizer (cached): " : "tokenizer trained: ") + path.string());
  return path;
}

PreparedProjectData prepareProjectData(const ProjectConfig& project, const ProjectDataOptions& options) {
  const PrepareLimits limits = limitsFor(project, options);
  const std::vector<SourceFile> train_sources = projectTrainSources(project);
  const std::vector<SourceFile> eval_sources = projectEvalSources(project);
  if (!eval_sources.empty()) checkEvalCorpus(project, eval_sources, limits);

  const fs::path cache_dir = project.cacheDirectory();
  const PreparationLock lock(cache_dir, options.stop, options.log);
  // Under the lock no writer is active here: whatever a killed one left is garbage.
  std::vector<fs::path> stale = removeStaleTemporaryFiles(cache_dir);
  std::error_code ec;
  for (fs::directory_iterator it(cache_dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_directory(ec) && !it->is_symlink(ec) && it->path().filename().string().rfind("data-", 0) == 0) {
      for (fs::path& file : removeStaleTemporaryFiles(it->path())) stale.push_back(std::move(file));
    }
  }
  for (const fs::path& file : stale) {
    if (options.log) options.log("removed " + file.string() + ", left by a preparation that did not finish");
  }
  PreparedProjectData prepared;
  bool reused = false;
  if (!project.tokenizer.file.empty()) {
    prepared.tokenizer_path = project.tokenizer.file;
    if (options.log) options.log("tokenizer (from tokenizer.file): " + prepared.tokenizer_path.string());
  } else {
    prepared.tokenizer_path =
        ensureTokenizer(train_sources, project.corpus.json_field, project.tokenizer, cache_dir, limits, &reused);
    if (options.log)
      options.log((reused ? "tokenizer (cached): " : "tokenizer trained: ") + prepared.tokenizer_path.string());
  }
  const Tokenizer tokenizer = Tokenizer::load(prepared.tokenizer_path);
  prepared.train_data =
      prepareTokenShards(shardPreparationFor(project, train_sources, options), tokenizer, cache_dir, limits, &reused);
  if (options.log)
    options.log((reused ? "training data (prepared before): " : "training data prepared: ") +
                prepared.train_data.string());
  if (!eval_sources.empty()) {
    prepared.eval_data =
        prepareTokenShards(shardPreparationFor(project, eval_sources, options), tokenizer, cache_dir, limits, &reused);
    if (options.log)
      options.log((reused ? "eval data (prepared before): " : "eval data prepared: ") + prepared.eval_data.string());
  }
  return prepared;
}

}  // namespace mixerlab
