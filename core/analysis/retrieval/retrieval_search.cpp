// Interactive cosine retrieval (see retrieval_search.h).
#include "core/analysis/retrieval/retrieval_search.h"

#include <torch/torch.h>

#include "core/analysis/analysis_model.h"
#include "core/analysis/retrieval/cosine_retrieval.h"
#include "core/analysis/retrieval/retrieval_dataset.h"
#include "core/analysis/retrieval/retrieval_training.h"

namespace mixerlab {

struct RetrievalSearch::Impl {
  RetrievalDataset data;
  AnalysisModel model;
  at::Tensor corpus;  // [N, D] every story, train then held out
};

RetrievalSearch::RetrievalSearch(const std::filesystem::path& dataset_dir) : impl_(std::make_unique<Impl>()) {
  impl_->data = loadRetrievalDataset(dataset_dir);
  impl_->model = loadAnalysisModel(impl_->data.source);
  impl_->corpus = torch::cat({impl_->data.target_train, impl_->data.target_test}, 0);
}

RetrievalSearch::~RetrievalSearch() = default;
RetrievalSearch::RetrievalSearch(RetrievalSearch&&) noexcept = default;
RetrievalSearch& RetrievalSearch::operator=(RetrievalSearch&&) noexcept = default;

std::string RetrievalSearch::modelLabel() const { return impl_->data.model_label; }
int64_t RetrievalSearch::storyCount() const { return impl_->corpus.size(0); }

std::vector<SearchHit> RetrievalSearch::search(const std::string& text, int64_t k) const {
  return search(text, k, -1).hits;
}

SearchResult RetrievalSearch::search(const std::string& text, int64_t k, int64_t marked_id) const {
  const at::Tensor query = embedTexts(impl_->model, {text}, impl_->data.embedding)[0];
  const at::Tensor scores = cosineScores(query, impl_->corpus);
  SearchResult result;
  for (const auto& r : topMatches(scores, k)) {
    const auto& pair = impl_->data.pairs[static_cast<size_t>(r.index)];
    result.hits.push_back({r.index, r.score, pair.story, pair.summary, r.index >= impl_->data.train_count});
  }
  if (marked_id >= 0 && marked_id < storyCount()) {
    result.marked_rank = rankOf(scores, marked_id);
    result.marked_score = scores[marked_id].item<double>();
  }
  return result;
}

const std::vector<StoryPair>& RetrievalSearch::pairs() const { return impl_->data.pairs; }
int64_t RetrievalSearch::trainCount() const { return impl_->data.train_count; }
std::string RetrievalSearch::architecture() const { return impl_->model.model->config().arch; }
int64_t RetrievalSearch::embeddingWidth() const { return impl_->corpus.size(1); }

std::pair<double, double> RetrievalSearch::heldOutAccuracy(int64_t candidates, uint64_t seed) const {
  const auto e = evaluateCosineRetrieval(impl_->data.query_test, impl_->data.target_test, candidates + 1, seed);
  return {e.eval_top1, e.eval_top5};
}

}  // namespace mixerlab
