// One retrieval column's worker, resident on the column's BackgroundJob thread: it gets the
// column's dataset folder ready (reusing one built earlier for this corpus and model, else
// embedding every summary and story, with progress, cancellable), loads the embedding model once,
// and then answers queries (one embedding + one matrix product each) and held-out accuracy
// requests. All calls arrive posted by the job, so a slow build or query never blocks the GUI; the
// panel posts queries with postLatest(), so a query typed over before it starts is never run.
#pragma once
#include <QObject>
#include <QString>
#include <filesystem>
#include <memory>
#include <optional>
#include <vector>

#include "app/gui/common/job_worker.h"
#include "core/analysis/model_source.h"
#include "core/analysis/retrieval/retrieval_corpus.h"
#include "core/analysis/retrieval/retrieval_search.h"

namespace mixerlab::gui {

// What a column opens: a corpus embedded by a model (dataset folders under `datasets_root`), or a
// dataset folder written by `mixerlab retrieval build`.
struct RetrievalOpenJob {
  std::optional<RetrievalCorpus> corpus;
  ModelSource source;
  std::filesystem::path datasets_root;
  std::filesystem::path dataset_dir;  // used when corpus is empty
};

struct RetrievalColumnInfo {
  QString dataset_dir;
  QString model_label, architecture;
  qint64 stories = 0, train_count = 0, width = 0;
  bool built = false;               // the folder was (re)built now, not reused
  std::vector<StoryPair> held_out;  // the held-out pairs, in order; story id = train_count + index
};

class RetrievalWorker : public JobWorker {
  Q_OBJECT
 public:
  RetrievalWorker();
  ~RetrievalWorker() override;

  // On the job's thread (posted by the panel).
  void open(const RetrievalOpenJob& job);
  void search(int request, const std::string& text, qint64 k, qint64 marked_id);
  void evaluate(qint64 candidates);

 Q_SIGNALS:
  void progress(qint64 done, qint64 total);
  void opened(const mixerlab::gui::RetrievalColumnInfo& info);
  void failed(const QString& error);
  void results(int request, const mixerlab::SearchResult& result, double query_ms);
  void accuracy(qint64 candidates, double top1, double top5, qint64 queries);

 private:
  std::unique_ptr<RetrievalSearch> search_;
};

}  // namespace mixerlab::gui
