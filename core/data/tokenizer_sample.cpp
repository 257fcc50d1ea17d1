// Streamed tokenizer samples and cached tokenizer training over corpus sources (see tokenizer_sample.h).
#include "core/data/tokenizer_sample.h"

#include <algorithm>

#include "core/data/data_manifest.h"
#include "core/data/preparation_lock.h"
#include "core/data/tokenizer_trainer_input.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/hashing.h"

namespace mixerlab {
namespace fs = std::filesystem;

namespace {

// Calls fn(document, index) for every document of every source, in order; fn returns false to stop.
template <typename Fn>
void forEachDocument(const std::vector<SourceFile>& sources, const std::string& json_field, const PrepareLimits& limits,
                     Fn fn) {
  std::string document;
  uint64_t index = 0;
  for (const SourceFile& source : sources) {
    DocumentStream stream(source, json_field, limits.max_document_bytes);
    while (stream.next(document)) {
      if (index % 4096 == 0) checkPreparationStop(limits.stop);
      if (!fn(document, index++)) return;
    }
  }
}

std::string sourcesKey(const std::vector<SourceFile>& sources, const std::string& json_field) {
  std::string key = "json_field=" + json_field + ";";
  for (const SourceFile& s : sources) key += sourceIdentity(s) + ";";
  return key;
}

}  // namespace

fs::path tokenizerSourcesFile(const fs::path& model) { return model.string() + ".sources.json"; }

std::vector<std::string> sampleTokenizerDocuments(const std::vector<SourceFile>& sources, const std::string& json_field,
                                                  const TokenizerSettings& settings, const PrepareLimits& limits) {
  const auto cap =
      settings.max_training_documents > 0 ? static_cast<uint64_t>(settings.max_training_documents) : UINT64_MAX;
  const uint64_t sample_bytes = limits.memory_bytes / 4;
  // First pass: keep documents while the corpus is within the cap; count and measure all of them.
  std::vector<std::string> kept;
  uint64_t count = 0, text_bytes = 0;
  bool within = true;
  forEachDocument(sources, json_field, limits, [&](const std::string& document, uint64_t) {
    ++count;
    text_bytes += document.size();
    within = within && count <= cap && text_bytes <= sample_bytes;
    if (within) {
      kept.push_back(document);
    } else if (!kept.empty()) {
      kept = {};
    }
    return true;
  });
  if (within) return kept;
  // Second pass: evenly spaced documents, as many as the cap and the byte bound allow.
  const double mean_bytes = count > 0 ? static_cast<double>(text_bytes) / static_cast<double>(count) : 1.0;
  const auto by_bytes = static_cast<uint64_t>(static_cast<double>(sample_bytes) / std::max(1.0, mean_bytes));
  const uint64_t n = std::max<uint64_t>(1, std::min({count, cap, by_bytes}));
  if (limits.log) {
    limits.log("tokenizer sample: " + std::to_string(n) + " evenly spaced documents of " + std::to_string(count) +
               (n < std::min(count, cap) ? " (tokenizer.max_training_documents, cut to stay within a quarter of the "
                                           "data memory bound)"
                                         : " (tokenizer.max_training_documents)"));
  }
  std::vector<std::string> sample;
  sample.reserve(n);
  uint64_t next_pick = 0;
  forEachDocument(sources, json_field, limits, [&](const std::string& document, uint64_t index) {
    if (index == static_cast<uint64_t>(static_cast<unsigned __int128>(next_pick) * count / n)) {
      sample.push_back(document);
      ++next_pick;
    }
    return next_pick < n;
  });
  return sample;
}

fs::path ensureTokenizer(const std::vector<SourceFile>& sources, const std::string& json_field,
                         const TokenizerSettings& settings, const fs::path& cache_dir, const PrepareLimits& limits,
                         bool* reused) {
  const fs::path model_path =
      cache_dir /
      ("tokenizer-" + hashHex("streamed;" + sourcesKey(sources, json_field) + "|" + settings.cacheKey()) + ".model");
  std::error_code ec;
  if (fs::is_regular_file(model_path, ec)) {
    if (reused) *reused = true;
    return model_path;
  }
  if (reused) *reused = false;
  fs::create_directories(cache_dir);
  const std::string corpus_name = sources.size() == 1 ? sources.front().path.string()
                                                      : sources.front().path.string() + " and " +
                                                            std::to_string(sources.size() - 1) + " more files";
  std::vector<std::string> sample = sampleTokenizerDocuments(sources, json_field, settings, limits);
  if (sample.empty()) {
    throw MixerLabError(
        "corpus " + corpus_name + " contains no documents (read as " + corpusFormatName(sources.front().format) + ")",
        "check the file, or set the corpus format explicitly");
  }
  // SentencePiece leaves out longer documents without a word: say which, and refuse when none is left.
  size_t too_long = 0;
  size_t first_too_long = 0;
  for (size_t i = 0; i < sample.size(); ++i) {
    if (static_cast<int64_t>(sample[i].size()) > kTrainerMaxSentenceBytes && too_long++ == 0) first_too_long = i;
  }
  if (too_long == sample.size()) {
    throw MixerLabError("cannot train a tokenizer on " + corpus_name + ": every document is longer than " +
                            "SentencePiece's limit of " + std::to_string(kTrainerMaxSentenceBytes) +
                            " bytes per document (the first is " + std::to_string(sample.front().size()) + " bytes)",
                        "split the corpus into smaller documents (blank lines or <|endoftext|> between them), or "
                        "use a ready-made tokenizer (tokenizer.file)");
  }
  if (too_long > 0 && limits.log) {
    limits.log("warning: " + std::to_string(too_long) + " document(s) of the tokenizer sample are longer than " +
               "SentencePiece's limit of " + std::to_string(kTrainerMaxSentenceBytes) +
               " bytes and are left out of tokenizer training (the first is sample document " +
               std::to_string(first_too_long + 1) + ", " + std::to_string(sample[first_too_long].size()) +
               " bytes); they are still tokenized for training");
  }
  trainTokenizer(sample, settings, model_path, corpus_name);
  std::vector<ManifestSource> learned_from;
  for (const SourceFile& s : sources) learned_from.push_back(manifestSourceOf(s));
  writeFileAtomic(tokenizerSourcesFile(model_path), nlohmann::json{{"sources", sourcesToJson(learned_from)}}.dump(2));
  return model_path;
}

fs::path ensureTokenizer(const fs::path& corpus, CorpusFormat format, const TokenizerSettings& settings,
                         const fs::path& cache_dir, bool* reused) {
  const std::vector<SourceFile> sources = expandCorpusSources({corpus.string()}, format);
  const PreparationLock lock(cache_dir, nullptr, nullptr);
  return ensureTokenizer(sources, "text", settings, cache_dir, PrepareLimits{}, reused);
}

}  // namespace mixerlab
