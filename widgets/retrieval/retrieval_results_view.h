// One embedding model's column of the retrieval panel: a title (the model), a status line (building
// the dataset, the held-out accuracy, an error), a progress bar while stories are embedded, the
// ranked stories for the current query (rank, cosine score, the story; its summary and whether it
// is held out on hover; the selected one in full below the list, the best one until the user picks
// another) and, when the user has marked the true match, where that story ranks. The marked story's
// row is highlighted; double-clicking a row (or its context menu) asks to mark it.
// A view over plain data: the panel feeds it.
#pragma once
#include <QString>
#include <QVector>
#include <QWidget>

class QLabel;
class QProgressBar;
class QToolButton;
class QTextBrowser;
class QTreeWidget;
class QTreeWidgetItem;

namespace mixerlab::widgets {

struct RankedStory {
  qint64 id = 0;     // the story's index in the corpus
  double score = 0;  // cosine similarity with the query
  QString story, summary;
  bool held_out = false;
};

class RetrievalResultsView : public QWidget {
  Q_OBJECT
 public:
  enum ResultColumn { RankColumn, ScoreColumn, StoryColumn };

  explicit RetrievalResultsView(QWidget* parent = nullptr);

  void setTitle(const QString& title, const QString& tooltip = {});
  void setRemoveEnabled(bool enabled);
  QString title() const;
  void setStatus(const QString& text);  // the line under the title (accuracy, what is loading)
  QString status() const;
  void setError(const QString& error);          // shown in red in the status line; clears the results
  void setProgress(qint64 done, qint64 total);  // total 0 hides the bar
  bool progressVisible() const;

  // marked_id < 0: no mark. marked_rank: the marked story's 1-based rank among story_count stories.
  void setResults(const QVector<RankedStory>& stories, qint64 marked_id, qint64 marked_rank, double marked_score,
                  qint64 story_count, double query_ms);
  void clearResults(const QString& why = {});
  int resultCount() const;
  RankedStory result(int row) const;
  int markedRow() const;           // the row holding the marked story, -1 when it is not shown
  QString previewText() const;     // the selected story as the pane below the list shows it
  QString markedRankText() const;  // "true match: rank 3 of 400 (cosine 0.912)", empty without a mark

 Q_SIGNALS:
  void markRequested(qint64 story_id);
  void removeRequested();

 private:
  void onItemActivated(QTreeWidgetItem* item);
  void showContextMenu(const QPoint& at);
  void showPreview(int row);

  QLabel* title_ = nullptr;
  QToolButton* remove_ = nullptr;
  QLabel* status_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QTreeWidget* list_ = nullptr;
  QTextBrowser* preview_ = nullptr;
  QLabel* marked_ = nullptr;
  QLabel* timing_ = nullptr;
  QVector<RankedStory> stories_;
  qint64 marked_id_ = -1;
};

}  // namespace mixerlab::widgets
