// Tokenizer training at corpus scale: SentencePiece learns from a bounded, stated sample of the corpus
// read by streaming, never from the whole corpus in memory. The sample is every document when the
// corpus has at most max_training_documents of them (the corpus read once), else that many evenly
// spaced documents (a counting pass, then a sampling pass), further thinned so the sample's text stays
// within a quarter of the memory bound. Documents over SentencePiece's sentence limit are named in the
// log (SentencePiece would leave them out silently); a sample with nothing left is refused.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "core/data/corpus_sources.h"
#include "core/data/shard_preparation.h"
#include "core/data/tokenizer.h"

namespace mixerlab {

// cache_dir/"tokenizer-<key>.model", key = hash of the sources' paths and fingerprints, their formats,
// json_field and settings.cacheKey(). Reused when present (*reused = true); otherwise sampled and
// trained (the caller holds the cache folder's PreparationLock), with a sidecar "<model>.sources.json"
// listing the corpus files it learned from, so a changed corpus marks it and its data stale.
std::filesystem::path tokenizerSourcesFile(const std::filesystem::path& model);
std::filesystem::path ensureTokenizer(const std::vector<SourceFile>& sources, const std::string& json_field,
                                      const TokenizerSettings& settings, const std::filesystem::path& cache_dir,
                                      const PrepareLimits& limits, bool* reused = nullptr);

// The same for one corpus input (a file, folder or glob) with default limits, under the cache folder's
// PreparationLock: the tokenizer a project with this corpus gets.
std::filesystem::path ensureTokenizer(const std::filesystem::path& corpus, CorpusFormat format,
                                      const TokenizerSettings& settings, const std::filesystem::path& cache_dir,
                                      bool* reused = nullptr);

// The documents ensureTokenizer trains on (exposed for tests and `bench data`).
std::vector<std::string> sampleTokenizerDocuments(const std::vector<SourceFile>& sources, const std::string& json_field,
                                                  const TokenizerSettings& settings, const PrepareLimits& limits);

}  // namespace mixerlab
