// Streaming, resumable token-shard preparation (see shard_preparation.h).
#include "core/data/shard_preparation.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <thread>

#include "core/data/preparation_lock.h"
#include "core/data/prepared_data_folders.h"
#include "core/data/token_shard_file.h"
#include "core/util/crash_point.h"
#include "core/util/error.h"
#include "core/util/hashing.h"

namespace mixerlab {
namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;
constexpr double kProgressLogEverySeconds = 10.0;

std::string shardFileName(size_t index) {
  char name[32];
  std::snprintf(name, sizeof name, "shard-%05zu.bin", index);
  return name;
}

std::string sizeText(uint64_t bytes) {
  char text[32];
  if (bytes >= (uint64_t{1} << 30)) {
    std::snprintf(text, sizeof text, "%.2f GB", static_cast<double>(bytes) / (1 << 30));
  } else {
    std::snprintf(text, sizeof text, "%.1f MB", static_cast<double>(bytes) / (1 << 20));
  }
  return text;
}

// The manifest a fresh preparation starts from.
DataManifest freshManifest(const ShardPreparation& p, const Tokenizer& tokenizer, const std::string& key) {
  DataManifest m;
  m.key = key;
  for (const SourceFile& s : p.sources) m.sources.push_back(manifestSourceOf(s));
  m.json_field = p.json_field;
  m.newline = newlineModeName(p.newline);
  m.tokenizer_path = tokenizer.modelPath().string();
  m.tokenizer_hash = tokenizer.hash();
  m.vocab_size = tokenizer.vocabSize();
  m.token_bytes = tokenBytesForVocabulary(tokenizer.vocabSize());
  m.shard_tokens = p.shard_tokens;
  return m;
}

// progress.json of an earlier attempt, when it belongs to this key and its shards are all there.
std::optional<DataManifest> resumableProgress(const fs::path& folder, const std::string& key,
                                              const std::function<void(const std::string&)>& log) {
  std::optional<DataManifest> progress;
  try {
    progress = readDataManifest(progressFile(folder));
  } catch (const MixerLabError& e) {
    if (log) log("starting the preparation over: " + std::string(e.what()));
    return std::nullopt;
  }
  if (!progress || progress->key != key) return std::nullopt;
  for (const ManifestShard& shard : progress->shards) {
    std::error_code ec;
    if (fs::file_size(folder / shard.file, ec) != shard.bytes || ec) {
      if (log) log("starting the preparation over: " + shard.file + " is missing or has another size");
      return std::nullopt;
    }
  }
  return progress;
}

// The loop of one preparation: reads blocks of documents, encodes them and cuts shards.
class ShardPreparer {
 public:
  ShardPreparer(const ShardPreparation& p, const Tokenizer& tokenizer, fs::path folder, DataManifest manifest,
                const PrepareLimits& limits)
      : p_(p),
        folder_(std::move(folder)),
        manifest_(std::move(manifest)),
        limits_(limits),
        encode_(tokenizer, p.newline, p.encode_limits),
        prepare_s_before_(manifest_.prepare_s) {
    for (const SourceFile& s : p_.sources) progress_.source_bytes_total += s.size_bytes;
    progress_.stage = "tokenizing";
  }

  void run() {
    size_t first_source = 0;
    int64_t skip = 0;
    if (!manifest_.shards.empty()) {
      first_source = manifest_.shards.back().end_source;
      skip = manifest_.shards.back().end_source_documents;
      log("resuming the preparation after " + std::to_string(manifest_.shards.size()) + " finished shards (" +
          std::to_string(manifest_.documents) + " documents)");
    }
    for (size_t s = 0; s < first_source; ++s) source_bytes_before_ += p_.sources[s].size_bytes;
    for (size_t s = first_source; s < p_.sources.size(); ++s) {
      readSource(s, s == first_source ? skip : 0);
      source_bytes_before_ += p_.sources[s].size_bytes;
    }
    if (writer_ && writer_->numDocuments() > 0) finishShard(p_.sources.size() - 1, manifest_.sources.back().documents);
    if (manifest_.documents == 0) {
      throw MixerLabError("the corpus has no documents (" + std::to_string(p_.sources.size()) + " files read, first " +
                              p_.sources.front().path.string() + " read as " +
                              corpusFormatName(p_.sources.front().format) + ")",
                          "check the corpus path and set corpus.format explicitly");
    }
    manifest_.complete = true;
    manifest_.prepare_s = prepare_s_before_ + secondsSince(start_);
    crashPoint("prepare-before-manifest");
    writeDataManifest(manifest_, manifestFile(folder_));
    std::error_code ignored;
    fs::remove(progressFile(folder_), ignored);
    report(true);
  }

 private:
  static double secondsSince(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

  void log(const std::string& line) const {
    if (limits_.log) limits_.log(line);
  }

  void readSource(size_t s, int64_t skip) {
    const SourceFile& source = p_.sources[s];
    DocumentStream stream(source, p_.json_field, limits_.max_document_bytes);
    std::string document;
    int64_t read = 0;
    for (; read < skip && stream.next(document); ++read) {
      if (read % 4096 == 0) checkPreparationStop(limits_.stop);
    }
    std::vector<std::string> block;
    std::vector<std::string> names;
    while (true) {
      checkPreparationStop(limits_.stop);
      uint64_t block_bytes = 0;
      block.clear();
      names.clear();
      while (block_bytes < limits_.blockBytes() && stream.next(document)) {
        block_bytes += document.size();
        names.push_back(source.path.string() + ", document " + std::to_string(stream.documentsRead()));
        block.push_back(std::move(document));
        document = std::string();
      }
      if (block.empty()) break;
      const auto ids = encodeDocuments(block, encode_, limits_.encodingThreads(), &names, limits_.stop);
      for (size_t k = 0; k < ids.size(); ++k) {
        if (!writer_) {
          writer_ = std::make_unique<TokenShardWriter>(folder_ / shardFileName(manifest_.shards.size()),
                                                       manifest_.token_bytes);
        }
        writer_->addDocument(ids[k]);
        ++read;
        text_bytes_in_shard_ += block[k].size();
        if (writer_->numTokens() >= p_.shard_tokens) finishShard(s, read);
      }
      progress_.source_bytes_done = source_bytes_before_ + stream.sourceBytesRead();
      report(false);
    }
    manifest_.sources[s].documents = read;
  }

  void finishShard(size_t end_source, int64_t end_source_documents) {
    writer_->commit();
    ManifestShard entry;
    entry.file = shardFileName(manifest_.shards.size());
    entry.documents = writer_->numDocuments();
    entry.tokens = writer_->numTokens();
    entry.bytes = writer_->fileBytes();
    entry.end_source = end_source;
    entry.end_source_documents = end_source_documents;
    writer_.reset();
    manifest_.shards.push_back(entry);
    manifest_.documents += entry.documents;
    manifest_.tokens += entry.tokens;
    manifest_.text_bytes += text_bytes_in_shard_;
    text_bytes_in_shard_ = 0;
    manifest_.prepare_s = prepare_s_before_ + secondsSince(start_);
    writeDataManifest(manifest_, progressFile(folder_));
    crashPoint("prepare-after-shard");
  }

  void report(bool final_report) {
    progress_.documents = manifest_.documents + (writer_ ? writer_->numDocuments() : 0);
    progress_.tokens = manifest_.tokens + (writer_ ? writer_->numTokens() : 0);
    progress_.elapsed_s = secondsSince(start_);
    if (limits_.on_progress) limits_.on_progress(progress_);
    if (!final_report && secondsSince(last_log_) < kProgressLogEverySeconds) return;
    last_log_ = Clock::now();
    const double seconds = std::max(1e-3, progress_.elapsed_s);
    const double done = progress_.source_bytes_total > 0 ? static_cast<double>(progress_.source_bytes_done) /
                                                               static_cast<double>(progress_.source_bytes_total)
                                                         : 1.0;
    char line[256];
    std::snprintf(
        line, sizeof line, "preparing data: %.0f%% of %s, %.1f MB/s, %.2fM tokens/s, %llu documents%s", 100.0 * done,
        sizeText(progress_.source_bytes_total).c_str(),
        static_cast<double>(progress_.source_bytes_done - std::min(progress_.source_bytes_done, resumed_bytes_)) /
            (1 << 20) / seconds,
        static_cast<double>(progress_.tokens) / 1e6 / seconds, static_cast<unsigned long long>(progress_.documents),
        final_report ? ", done" : "");
    log(line);
  }

  const ShardPreparation& p_;
  fs::path folder_;
  DataManifest manifest_;
  const PrepareLimits& limits_;
  DocumentEncoder encode_;
  double prepare_s_before_;
  std::unique_ptr<TokenShardWriter> writer_;
  uint64_t text_bytes_in_shard_ = 0;
  uint64_t source_bytes_before_ = 0;
  uint64_t resumed_bytes_ = 0;
  PrepareProgress progress_;
  Clock::time_point start_ = Clock::now();
  Clock::time_point last_log_ = Clock::now();
};

// Says which corpus file changed when data prepared from the same files no longer matches them.
void noticeChangedSources(const ShardPreparation& p, const fs::path& cache_dir, const PrepareLimits& limits) {
  if (!limits.log) return;
  for (const PreparedDataEntry& entry : listPreparedData(cache_dir)) {
    if (entry.state != PreparedDataState::Stale || !entry.manifest ||
        entry.manifest->sources.size() != p.sources.size()) {
      continue;
    }
    bool same_files = true;
    for (size_t i = 0; i < p.sources.size(); ++i)
      same_files &= entry.manifest->sources[i].path == p.sources[i].path.string();
    if (same_files) {
      limits.log(entry.reason + " since " + entry.path.filename().string() +
                 " was prepared: preparing it again (`mixerlab data prune` removes the old shards)");
    }
  }
}

}  // namespace

unsigned PrepareLimits::encodingThreads() const {
  return threads > 0 ? threads : std::max(1u, std::thread::hardware_concurrency());
}

std::string preparedDataKey(const ShardPreparation& p, const Tokenizer& tokenizer) {
  Fnv1aHasher hasher;
  hasher.update("token-shards-v1;");
  for (const SourceFile& s : p.sources) {
    hasher.update(sourceIdentity(s) + ";");
  }
  hasher.update("json_field=" + p.json_field + ";newline=" + newlineModeName(p.newline) +
                ";shard_tokens=" + std::to_string(p.shard_tokens) + ";tokenizer=" + tokenizer.hash());
  return hasher.hex();
}

fs::path prepareTokenShards(const ShardPreparation& p, const Tokenizer& tokenizer, const fs::path& cache_dir,
                            const PrepareLimits& limits, bool* reused) {
  if (p.sources.empty())
    throw MixerLabError("no corpus files to prepare", "set corpus.train to a file, folder or glob");
  const std::string key = preparedDataKey(p, tokenizer);
  const fs::path folder = cache_dir / ("data-" + key);
  if (const auto manifest = readDataManifest(manifestFile(folder)); manifest && manifest->complete) {
    if (reused) *reused = true;
    return folder;
  }
  if (reused) *reused = false;
  noticeChangedSources(p, cache_dir, limits);
  fs::create_directories(folder);
  for (const fs::path& stale : removeStaleTemporaryFiles(folder)) {
    if (limits.log) limits.log("removed " + stale.string() + ", left by a preparation that did not finish");
  }
  DataManifest manifest = resumableProgress(folder, key, limits.log).value_or(freshManifest(p, tokenizer, key));
  ShardPreparer(p, tokenizer, folder, std::move(manifest), limits).run();
  return folder;
}

fs::path prepareCorpusShards(const fs::path& corpus, CorpusFormat format, const Tokenizer& tokenizer,
                             const fs::path& cache_dir, bool* reused, NewlineMode newline) {
  ShardPreparation preparation;
  preparation.sources = expandCorpusSources({corpus.string()}, format);
  preparation.newline = newline;
  const PreparationLock lock(cache_dir, nullptr, nullptr);
  return prepareTokenShards(preparation, tokenizer, cache_dir, PrepareLimits{}, reused);
}

}  // namespace mixerlab
