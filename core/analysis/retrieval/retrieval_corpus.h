// A retrieval corpus (the synthetic stories, a JSON Lines pairs file, or a plain story corpus such as
// the project's own, paired with its stories' opening sentences) and the dataset folders the
// workbench keeps for it, one per embedding model: <root>/<corpus id>/<model name>/. A folder built
// earlier for the same model and the same pairs is reused; anything else is (re)built. This is how
// the GUI's retrieval panel gets from "this corpus, that checkpoint" to a searchable dataset
// without the user running `mixerlab retrieval build`. Torch-free header for Qt callers.
#pragma once
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "core/analysis/model_source.h"
#include "core/analysis/retrieval/text_embeddings.h"
#include "core/data/corpus_reader.h"
#include "core/data/story_pairs.h"

namespace mixerlab {

enum class RetrievalCorpusKind {
  Synthetic,   // generated stories with exact summaries
  PairsFile,   // JSON Lines of {"summary", "story"}
  StoryCorpus  // a corpus of stories without summaries: each story's opening sentence is its query
};

struct RetrievalCorpus {
  RetrievalCorpusKind kind = RetrievalCorpusKind::Synthetic;
  std::filesystem::path pairs_file;  // PairsFile
  int64_t synthetic_count = 400;     // Synthetic
  uint64_t seed = 1;                 // Synthetic
  // StoryCorpus: a file, folder or glob pattern of stories, read as a project corpus is.
  std::string story_source;
  CorpusFormat story_format = CorpusFormat::Auto;
  std::string json_field = "text";
  int64_t max_stories = 2000;  // only the first this many usable stories are read and embedded
  double test_fraction = 0.1;  // the last ceil(fraction * N) pairs are held out

  static RetrievalCorpus synthetic(int64_t count, uint64_t seed = 1);
  static RetrievalCorpus file(const std::filesystem::path& pairs_file);
  static RetrievalCorpus stories(const std::string& source, CorpusFormat format, const std::string& json_field,
                                 int64_t max_stories);

  // A folder-safe name: "synthetic-400-seed1", "pairs-<file stem>-<hash of its absolute path>", or
  // "stories-<stem>-<N>-<hash of the absolute source, format and field>".
  std::string id() const;
  // "400 synthetic stories (seed 1)", the pairs file's name, or "first 2000 stories of <name>".
  std::string label() const;
  // Reads the file (MixerLabError naming it when missing or malformed), reads the story corpus
  // (text_story_pairs.h) or generates the stories.
  std::vector<StoryPair> pairs() const;
};

// "<run>-step-00000300" for runs/<run>/checkpoints/step-00000300, "-untrained" appended for an
// untrained twin; other folders by their last two path parts.
std::string datasetFolderName(const ModelSource& source);

struct EnsuredDataset {
  std::filesystem::path dir;
  bool built = false;  // false: an earlier folder was reused
};

// root/<corpus.id()>/<datasetFolderName(source)>, built (embedding every summary and story,
// `progress(done, total)` as buildRetrievalDataset reports it; `cancel` stops it with
// MixerLabError) unless it already holds this model's embeddings of exactly these pairs.
// `embedding` chooses the position and the states read (text_embeddings.h); a reading other than
// the family's default gets a folder of its own (datasetFolderName).
EnsuredDataset ensureRetrievalDataset(const RetrievalCorpus& corpus, const ModelSource& source,
                                      const std::filesystem::path& root,
                                      const std::function<void(size_t, size_t)>& progress = {},
                                      const std::atomic<bool>* cancel = nullptr,
                                      const EmbeddingSettings& embedding = EmbeddingSettings{});

}  // namespace mixerlab
