// RetrievalWorker (see retrieval_worker.h).
#include "app/gui/retrieval/retrieval_worker.h"

#include <chrono>
#include <exception>

namespace mixerlab::gui {

RetrievalWorker::RetrievalWorker() = default;

RetrievalWorker::~RetrievalWorker() = default;

void RetrievalWorker::open(const RetrievalOpenJob& job) {
  try {
    search_.reset();
    std::filesystem::path dir = job.dataset_dir;
    bool built = false;
    if (job.corpus) {
      const auto report = [this](size_t done, size_t total) {
        if (progressDue(done == total)) Q_EMIT progress(static_cast<qint64>(done), static_cast<qint64>(total));
      };
      const EnsuredDataset ensured =
          ensureRetrievalDataset(*job.corpus, job.source, job.datasets_root, report, cancelFlag());
      dir = ensured.dir;
      built = ensured.built;
    }
    search_ = std::make_unique<RetrievalSearch>(dir);
    useCoreShare();  // after loading: loading a model sets the threads to every core
    RetrievalColumnInfo info;
    info.dataset_dir = QString::fromStdString(dir.string());
    info.model_label = QString::fromStdString(search_->modelLabel());
    info.architecture = QString::fromStdString(search_->architecture());
    info.stories = search_->storyCount();
    info.train_count = search_->trainCount();
    info.width = search_->embeddingWidth();
    info.built = built;
    const auto& pairs = search_->pairs();
    info.held_out.assign(pairs.begin() + static_cast<std::ptrdiff_t>(info.train_count), pairs.end());
    Q_EMIT opened(info);
  } catch (const std::exception& e) {
    search_.reset();
    Q_EMIT failed(QString::fromStdString(e.what()));
  }
}

void RetrievalWorker::search(int request, const std::string& text, qint64 k, qint64 marked_id) {
  if (!search_) return;
  try {
    const auto start = std::chrono::steady_clock::now();
    SearchResult result = search_->search(text, k, marked_id);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    Q_EMIT results(request, result, ms);
  } catch (const std::exception& e) {
    Q_EMIT failed(QString::fromStdString(e.what()));
  }
}

void RetrievalWorker::evaluate(qint64 candidates) {
  if (!search_) return;
  try {
    const qint64 queries = search_->storyCount() - search_->trainCount();
    // The research's sampler draws the c-1 candidates among the other held-out stories before the
    // true story takes one slot: at most queries - 1 candidates.
    const qint64 c = std::max<qint64>(1, std::min<qint64>(candidates, queries - 1));
    const auto [top1, top5] = search_->heldOutAccuracy(c);
    Q_EMIT accuracy(c, top1, top5, queries);
  } catch (const std::exception& e) {
    Q_EMIT failed(QString::fromStdString(e.what()));
  }
}

}  // namespace mixerlab::gui
