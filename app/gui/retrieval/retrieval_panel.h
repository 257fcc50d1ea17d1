// The retrieval panel (the main window's "Retrieve" tab, docs/retrieval.md): choose a corpus of (summary,
// story) pairs (the built-in synthetic stories, a JSON Lines file, or the project's own stories, each
// paired with its opening sentence) and up to two embedding models
// (a project run's latest checkpoint, any checkpoint folder, or a dataset folder written by
// `mixerlab retrieval build`) side by side. Type a summary or a few keywords and every column ranks
// the corpus's stories by cosine similarity as you type. Pick a held-out summary (its story is then
// marked as the true match) or mark a result as the true match: each column shows where that story
// ranks. Each column also shows its model's held-out top-1 / top-5 accuracy over a chosen number of
// candidates. "Train retrieval model" trains the research's retrieval mixer on a column's
// embeddings as a run of the project (a CLI child process; its curves show in the Loss curves tab).
// Every column works on a thread of its own (a RetrievalWorker resident on the column's
// BackgroundJob): building a dataset (embedding the corpus once per model, kept under
// <project>/retrieval/), loading the model and each query.
#pragma once
#include <QString>
#include <QVector>
#include <QWidget>
#include <memory>
#include <optional>
#include <vector>

#include "app/gui/common/checkpoint_picker.h"
#include "app/gui/retrieval/retrieval_worker.h"
#include "core/analysis/retrieval/retrieval_corpus.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QSplitter;
class QTimer;
class QToolButton;

namespace mixerlab::widgets {
class RetrievalResultsView;
}

namespace mixerlab::gui {

class BackgroundJob;

class RetrievalPanel : public QWidget {
  Q_OBJECT
 public:
  static constexpr int kMaxColumns = 2;
  static constexpr int kTypingPauseMs = 150;  // a query starts once typing pauses this long

  explicit RetrievalPanel(QWidget* parent = nullptr);
  ~RetrievalPanel() override;  // cancels builds and joins every worker thread

  // The open project's runs folder: "Add run" lists its runs, and dataset folders are kept in
  // <project>/retrieval/ beside it. Another folder than before (another project) removes the columns.
  void setRunsDirectory(const QString& runs_directory);
  void setDatasetsRoot(const QString& root);
  QString datasetsRoot() const { return datasets_root_; }

  // Re-opens every corpus-based column on the new corpus.
  void setCorpus(const RetrievalCorpus& corpus);
  // The open project's stories (a StoryCorpus), offered in the corpus list; nullopt: no project.
  void setProjectCorpus(const std::optional<RetrievalCorpus>& corpus);
  const RetrievalCorpus& corpus() const { return corpus_; }

  // Adds a column for a run folder (its latest checkpoint), a checkpoint folder (untrained: its
  // freshly initialised twin) or a dataset folder. Returns an error message, empty when the column
  // was added (it then opens in the background: columnReady or columnFailed follows).
  QString addModel(const QString& path, bool untrained = false);
  // "Add run" / "Add folder...": up to kMaxColumns models, each once.
  CheckpointPicker* checkpointPicker() const { return picker_; }
  void removeColumn(int index);
  int columnCount() const { return static_cast<int>(columns_.size()); }
  widgets::RetrievalResultsView* column(int index) const;
  bool isReady(int index) const;

  void setQuery(const QString& text);  // as if typed: searches once typing pauses
  QString query() const;
  void searchNow();  // every ready column, at once

  // The held-out summaries of the first ready column's corpus.
  int heldOutCount() const { return static_cast<int>(held_out_.size()); }
  // Puts held-out summary `index` in the query box and marks its story as the true match.
  bool chooseHeldOut(int index);
  void markTrueMatch(qint64 story_id);
  void clearMark();
  qint64 markedStory() const { return marked_id_; }

  void setCandidates(int candidates);  // for the held-out accuracy; re-evaluates every column
  int candidates() const;
  void setResultCount(int k);

  // Trains the research's retrieval model (docs/retrieval.md) on column `index`'s dataset as a run of the
  // project: a `mixerlab retrieval train` child process writing runs/<name>, whose curves the
  // workbench plots live. Returns the run's name, or empty with *error set.
  QString trainRetrievalModel(int index, int epochs = 20, QString* error = nullptr);

  void stop();  // cancel builds, join threads (the window is closing)
  QString statusText() const;

 Q_SIGNALS:
  void columnReady(int index);
  void columnFailed(int index, const QString& error);
  void resultsShown(int index);   // a query's ranking is on screen
  void accuracyShown(int index);  // the held-out accuracy is on screen

 private:
  struct Column {
    ModelSource source;
    QString dataset_dir;  // set for a dataset-folder column (it ignores the corpus)
    QString label;
    // CheckpointColumn::key, or the dataset folder: the picker refuses a second column with it.
    QString key;
    widgets::RetrievalResultsView* view = nullptr;
    // The column's thread; its worker's reports arrive only while the worker is its current job (a
    // corpus change replaces it). The column owns it, so a removed column's reports are dropped.
    std::unique_ptr<BackgroundJob> job;
    RetrievalWorker* worker = nullptr;  // the current job's, on its thread
    bool ready = false;
    RetrievalColumnInfo info;
  };
  QWidget* buildControls();
  int indexOf(const Column* column) const;  // -1 when it is no longer a column
  void openColumn(Column& c);
  void startWorker(Column& c);
  void stopWorker(Column& c);
  void onOpened(const Column* column, const RetrievalColumnInfo& info);
  void onFailed(const Column* column, const QString& error);
  void onResults(const Column* column, int request, const SearchResult& result, double query_ms);
  void onAccuracy(const Column* column, qint64 candidates, double top1, double top5, qint64 queries);
  void searchColumn(Column& c);
  void evaluateColumn(Column& c);
  void refreshHeldOutList();
  void onCorpusPicked(int combo_index);
  void showCorpusChoice();  // the corpus list and its count box show corpus_
  void onHeldOutPicked(int combo_index);
  void populateTrainMenu();
  void updateMarkLabel();
  void updateControls();
  void showStatus(const QString& text);

  std::vector<std::unique_ptr<Column>> columns_;
  int request_ = 0;  // the newest query's number
  RetrievalCorpus corpus_ = RetrievalCorpus::synthetic(400);
  std::optional<RetrievalCorpus> project_corpus_;
  QString runs_directory_, datasets_root_;
  std::vector<StoryPair> held_out_;
  qint64 held_out_first_id_ = 0;  // story id of held_out_[0]
  qint64 marked_id_ = -1;
  QString marked_story_;

  QComboBox* corpus_box_ = nullptr;
  QSpinBox* synthetic_count_ = nullptr;
  CheckpointPicker* picker_ = nullptr;
  QToolButton* train_ = nullptr;
  QLineEdit* query_edit_ = nullptr;
  QComboBox* held_out_box_ = nullptr;
  QSpinBox* result_count_ = nullptr;
  QSpinBox* candidates_ = nullptr;
  QLabel* mark_label_ = nullptr;
  QPushButton* clear_mark_ = nullptr;
  QLabel* status_ = nullptr;
  QSplitter* splitter_ = nullptr;
  QLabel* placeholder_ = nullptr;
  QTimer* typing_timer_ = nullptr;
};

}  // namespace mixerlab::gui
