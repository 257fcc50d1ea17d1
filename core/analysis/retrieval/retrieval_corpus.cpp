// Retrieval corpora and their per-model dataset folders (see retrieval_corpus.h).
#include "core/analysis/retrieval/retrieval_corpus.h"

#include <cctype>

#include "core/analysis/retrieval/retrieval_dataset.h"
#include "core/data/text_story_pairs.h"
#include "core/runs/run_directory.h"
#include "core/util/error.h"
#include "core/util/hashing.h"

namespace mixerlab {
namespace fs = std::filesystem;

namespace {
std::string folderSafe(const std::string& s) {
  std::string out;
  for (const char c : s)
    out += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' ? c : '_';
  return out.empty() ? "_" : out;
}

// The folder holds this model's embeddings of exactly these pairs, split the same way, read as `embedding` says.
bool matches(const fs::path& dir, const ModelSource& source, const std::vector<StoryPair>& pairs, double test_fraction,
             const EmbeddingSettings& embedding) {
  try {
    if (!fs::exists(dir / "retrieval.json")) return false;
    const RetrievalDataset d = loadRetrievalDataset(dir);
    const auto n = static_cast<int64_t>(pairs.size());
    const auto held_out = static_cast<int64_t>(std::ceil(test_fraction * static_cast<double>(n)));
    const int64_t train = std::clamp<int64_t>(n - held_out, 1, n - 1);
    if (d.source.untrained != source.untrained || d.source.run_name != source.run_name) return false;
    if (fs::weakly_canonical(d.source.path) != fs::weakly_canonical(source.path)) return false;
    if (d.train_count != train || d.pairs.size() != pairs.size()) return false;
    if (d.embedding_states != kEmbeddingStatesVersion) return false;
    if (d.embedding.from_end != embedding.from_end || d.embedding.after_final_norm != embedding.after_final_norm)
      return false;
    for (size_t i = 0; i < pairs.size(); ++i) {
      if (d.pairs[i].summary != pairs[i].summary || d.pairs[i].story != pairs[i].story) return false;
    }
    return true;
  } catch (const std::exception&) {
    return false;  // unreadable or half-written: build it again
  }
}
}  // namespace

RetrievalCorpus RetrievalCorpus::synthetic(int64_t count, uint64_t seed) {
  RetrievalCorpus c;
  c.kind = RetrievalCorpusKind::Synthetic;
  c.synthetic_count = count;
  c.seed = seed;
  return c;
}

RetrievalCorpus RetrievalCorpus::file(const fs::path& pairs_file) {
  RetrievalCorpus c;
  c.kind = RetrievalCorpusKind::PairsFile;
  c.pairs_file = pairs_file;
  return c;
}

RetrievalCorpus RetrievalCorpus::stories(const std::string& source, CorpusFormat format, const std::string& json_field,
                                         int64_t max_stories) {
  RetrievalCorpus c;
  c.kind = RetrievalCorpusKind::StoryCorpus;
  c.story_source = source;
  c.story_format = format;
  c.json_field = json_field;
  c.max_stories = max_stories;
  return c;
}

std::string RetrievalCorpus::id() const {
  switch (kind) {
    case RetrievalCorpusKind::Synthetic:
      return "synthetic-" + std::to_string(synthetic_count) + "-seed" + std::to_string(seed);
    case RetrievalCorpusKind::PairsFile:
      return "pairs-" + folderSafe(pairs_file.stem().string()) + "-" +
             hashHex(fs::absolute(pairs_file).string()).substr(0, 8);
    case RetrievalCorpusKind::StoryCorpus:
      return "stories-" + folderSafe(fs::path(story_source).stem().string()) + "-" + std::to_string(max_stories) + "-" +
             hashHex(fs::absolute(story_source).string() + "|" + corpusFormatName(story_format) + "|" + json_field)
                 .substr(0, 8);
  }
  return {};
}

std::string RetrievalCorpus::label() const {
  switch (kind) {
    case RetrievalCorpusKind::Synthetic:
      return std::to_string(synthetic_count) + " synthetic stories (seed " + std::to_string(seed) + ")";
    case RetrievalCorpusKind::PairsFile:
      return pairs_file.filename().string();
    case RetrievalCorpusKind::StoryCorpus:
      return "first " + std::to_string(max_stories) + " stories of " + fs::path(story_source).filename().string();
  }
  return {};
}

std::vector<StoryPair> RetrievalCorpus::pairs() const {
  switch (kind) {
    case RetrievalCorpusKind::PairsFile:
      return readStoryPairs(pairs_file);
    case RetrievalCorpusKind::StoryCorpus:
      return readOpeningSentencePairs({story_source}, story_format, json_field, max_stories);
    case RetrievalCorpusKind::Synthetic:
      break;
  }
  if (synthetic_count < 2)
    throw MixerLabError("a synthetic corpus needs at least 2 stories, got " + std::to_string(synthetic_count));
  return syntheticStoryPairs(static_cast<size_t>(synthetic_count), seed);
}

std::string datasetFolderName(const ModelSource& source) {
  std::string name;
  if (!source.run_name.empty()) {
    name = source.path.stem().string() + "-" + source.run_name;
  } else if (RunPaths::holdsCheckpoint(source.path)) {
    name = RunPaths::ofCheckpoint(source.path).root.filename().string() + "-" + source.path.filename().string();
  } else {
    name = source.path.parent_path().filename().string() + "-" + source.path.filename().string();
  }
  if (source.untrained) name += "-untrained";
  return folderSafe(name);
}

EnsuredDataset ensureRetrievalDataset(const RetrievalCorpus& corpus, const ModelSource& source, const fs::path& root,
                                      const std::function<void(size_t, size_t)>& progress,
                                      const std::atomic<bool>* cancel, const EmbeddingSettings& embedding) {
  const std::vector<StoryPair> pairs = corpus.pairs();
  std::string folder = datasetFolderName(source);
  if (embedding.from_end >= 0) folder += "-from-end-" + std::to_string(embedding.from_end);
  if (embedding.after_final_norm) folder += "-after-final-norm";
  EnsuredDataset out{root / corpus.id() / folder, false};
  if (matches(out.dir, source, pairs, corpus.test_fraction, embedding)) return out;
  buildRetrievalDataset(source, pairs, corpus.test_fraction, embedding, out.dir, progress, cancel);
  out.built = true;
  return out;
}

}  // namespace mixerlab
