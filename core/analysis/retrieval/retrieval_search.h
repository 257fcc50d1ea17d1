// Interactive retrieval over a dataset folder (retrieval_dataset.h): the embedding model is loaded
// once, the stories' embeddings are read once, and each query is one embedding plus one matrix
// product, so a panel can rank as the user types. Torch-free header (pimpl) for Qt callers.
#pragma once
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace mixerlab {

struct SearchHit {
  int64_t id = 0;     // index into the dataset's pairs
  double score = 0;   // cosine similarity
  std::string story, summary;
  bool held_out = false;
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
  // Cosine top-1 / top-5 of the held-out summaries among `candidates` drawn per query (seeded).
  std::pair<double, double> heldOutAccuracy(int64_t candidates, uint64_t seed = 2) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mixerlab
