// Interactive retrieval over a dataset folder (retrieval_dataset.h): the embedding model is loaded
// once, the stories' embeddings are read once, and each query is one embedding plus one matrix
// product, so a panel can rank as the user types. Torch-free header (pimpl) for Qt callers.
#pragma once
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "core/data/story_pairs.h"

namespace mixerlab {

struct SearchHit {
  int64_t id = 0;    // index into the dataset's pairs
  double score = 0;  // cosine similarity
  std::string story, summary;
  bool held_out = false;
};

struct SearchResult {
  std::vector<SearchHit> hits;  // best first
  int64_t marked_rank = 0;      // 1-based rank of the marked story among all stories; 0: none marked
  double marked_score = 0;
};

class RetrievalSearch {
 public:
  // Throws MixerLabError naming the folder when it is no dataset folder.
  explicit RetrievalSearch(const std::filesystem::path& dataset_dir);
  ~RetrievalSearch();
  RetrievalSearch(RetrievalSearch&&) noexcept;
  RetrievalSearch& operator=(RetrievalSearch&&) noexcept;

  std::string modelLabel() const;
  int64_t storyCount() const;
  // The k best stories for `text` (a summary or a few keywords), best first.
  std::vector<SearchHit> search(const std::string& text, int64_t k) const;
  // The same, plus where story `marked_id` (the true match, when the user knows it) ranks among
  // every story: how far a near miss is. marked_id < 0: none.
  SearchResult search(const std::string& text, int64_t k, int64_t marked_id) const;

  // The dataset's pairs: [0, trainCount()) train, the rest held out.
  const std::vector<StoryPair>& pairs() const;
  int64_t trainCount() const;
  std::string architecture() const;  // the embedding model's family, e.g. "masked_mixer"
  int64_t embeddingWidth() const;
  // Cosine top-1 / top-5 of the held-out summaries among `candidates` drawn per query (seeded).
  std::pair<double, double> heldOutAccuracy(int64_t candidates, uint64_t seed = 2) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mixerlab
