// RetrievalResultsView (see retrieval_results_view.h).
#include "widgets/retrieval/retrieval_results_view.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QProgressBar>
#include <QSplitter>
#include <QTextBrowser>
#include <QToolButton>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "widgets/tables/column_header.h"

namespace mixerlab::widgets {

namespace {
const QColor kMarkedBackground(198, 239, 206);  // light green: the true match

QString oneLine(const QString& text) { return QString(text).replace('\n', ' ').simplified(); }
}  // namespace

RetrievalResultsView::RetrievalResultsView(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  title_ = makeBoldTitle(this, "retrieval-column-title", /*selectable=*/true);
  remove_ = makeRemoveButton(this, "retrieval-remove-column", "Remove this model");
  connect(remove_, &QToolButton::clicked, this, &RetrievalResultsView::removeRequested);
  auto* title_row = new QHBoxLayout;
  title_row->addWidget(title_, 1);
  title_row->addWidget(remove_);
  status_ = new QLabel(this);
  status_->setObjectName("retrieval-column-status");
  status_->setWordWrap(true);
  progress_ = new QProgressBar(this);
  progress_->setVisible(false);
  list_ = new QTreeWidget(this);
  list_->setObjectName("retrieval-results");
  list_->setColumnCount(3);
  list_->setHeaderLabels({"#", "cosine", "story"});
  list_->setRootIsDecorated(false);
  list_->setWordWrap(true);
  list_->setUniformRowHeights(false);
  list_->setAlternatingRowColors(true);
  list_->setContextMenuPolicy(Qt::CustomContextMenu);
  list_->header()->setSectionResizeMode(RankColumn, QHeaderView::ResizeToContents);
  list_->header()->setSectionResizeMode(ScoreColumn, QHeaderView::ResizeToContents);
  list_->header()->setSectionResizeMode(StoryColumn, QHeaderView::Stretch);
  list_->header()->setStretchLastSection(true);
  preview_ = new QTextBrowser(this);
  preview_->setObjectName("retrieval-preview");
  preview_->setOpenLinks(false);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(list_);
  split->addWidget(preview_);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  split->setChildrenCollapsible(false);
  marked_ = new QLabel(this);
  marked_->setObjectName("retrieval-marked-rank");
  marked_->setVisible(false);
  timing_ = new QLabel(this);
  timing_->setObjectName("retrieval-query-timing");
  timing_->setStyleSheet("color: gray");
  layout->addLayout(title_row);
  layout->addWidget(status_);
  layout->addWidget(progress_);
  layout->addWidget(split, 1);
  layout->addWidget(marked_);
  layout->addWidget(timing_);
  connect(list_, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem* item, int) { onItemActivated(item); });
  connect(list_, &QTreeWidget::itemDoubleClicked, this, [this](QTreeWidgetItem* item, int) { onItemActivated(item); });
  connect(list_, &QTreeWidget::currentItemChanged, this,
          [this](QTreeWidgetItem* item) { showPreview(item != nullptr ? list_->indexOfTopLevelItem(item) : -1); });
  connect(list_, &QWidget::customContextMenuRequested, this, &RetrievalResultsView::showContextMenu);
}

void RetrievalResultsView::setTitle(const QString& title, const QString& tooltip) {
  title_->setText(title);
  title_->setToolTip(tooltip);
}

void RetrievalResultsView::setRemoveEnabled(bool enabled) { remove_->setEnabled(enabled); }

QString RetrievalResultsView::title() const { return title_->text(); }

void RetrievalResultsView::setStatus(const QString& text) {
  status_->setStyleSheet({});
  status_->setText(text);
}

QString RetrievalResultsView::status() const { return status_->text(); }

void RetrievalResultsView::setError(const QString& error) {
  status_->setStyleSheet("color: #b00020");
  status_->setText(error);
  progress_->setVisible(false);
  clearResults();
}

void RetrievalResultsView::setProgress(qint64 done, qint64 total) {
  progress_->setVisible(total > 0);
  if (total <= 0) return;
  progress_->setRange(0, 1000);
  progress_->setValue(static_cast<int>(1000 * done / total));
  progress_->setFormat(QString("embedded %1 / %2 texts").arg(done).arg(total));
}

bool RetrievalResultsView::progressVisible() const { return progress_->isVisibleTo(this); }

void RetrievalResultsView::setResults(const QVector<RankedStory>& stories, qint64 marked_id, qint64 marked_rank,
                                      double marked_score, qint64 story_count, double query_ms) {
  stories_ = stories;
  marked_id_ = marked_id;
  list_->clear();
  for (int i = 0; i < stories.size(); ++i) {
    const RankedStory& s = stories[i];
    auto* item = new QTreeWidgetItem(list_);
    item->setText(RankColumn, QString::number(i + 1));
    item->setText(ScoreColumn, QString::number(s.score, 'f', 3));
    item->setText(StoryColumn, oneLine(s.story));
    item->setData(StoryColumn, Qt::UserRole, s.id);
    item->setToolTip(StoryColumn, QString("<p><b>story %1%2</b></p><p><i>summary:</i> %3</p><p>%4</p>")
                                      .arg(s.id)
                                      .arg(s.held_out ? " (held out)" : "")
                                      .arg(s.summary.toHtmlEscaped(), s.story.toHtmlEscaped()));
    item->setTextAlignment(RankColumn, Qt::AlignRight | Qt::AlignTop);
    item->setTextAlignment(ScoreColumn, Qt::AlignRight | Qt::AlignTop);
    if (s.id == marked_id) {
      for (int c = 0; c < 3; ++c) item->setBackground(c, kMarkedBackground);
      item->setText(RankColumn, QString::number(i + 1) + " \u2713");
    }
  }
  if (!stories.isEmpty()) list_->setCurrentItem(list_->topLevelItem(0));
  showPreview(stories.isEmpty() ? -1 : 0);
  if (marked_id >= 0 && marked_rank > 0) {
    marked_->setText(QString("true match: rank %1 of %2 (cosine %3)%4")
                         .arg(marked_rank)
                         .arg(story_count)
                         .arg(marked_score, 0, 'f', 3)
                         .arg(marked_rank == 1   ? "  \u2713 top-1"
                              : marked_rank <= 5 ? "  in the top 5"
                                                 : ""));
    marked_->setVisible(true);
  } else {
    marked_->clear();
    marked_->setVisible(false);
  }
  timing_->setText(query_ms >= 0
                       ? QString("embedded and ranked %1 stories in %2 ms").arg(story_count).arg(query_ms, 0, 'f', 1)
                       : QString());
}

void RetrievalResultsView::clearResults(const QString& why) {
  stories_.clear();
  list_->clear();
  preview_->clear();
  marked_->clear();
  marked_->setVisible(false);
  timing_->setText(why);
}

int RetrievalResultsView::resultCount() const { return static_cast<int>(stories_.size()); }
RankedStory RetrievalResultsView::result(int row) const { return stories_.value(row); }

int RetrievalResultsView::markedRow() const {
  for (int i = 0; i < stories_.size(); ++i) {
    if (stories_[i].id == marked_id_) return i;
  }
  return -1;
}

QString RetrievalResultsView::markedRankText() const {
  return marked_->isVisibleTo(this) ? marked_->text() : QString();
}

void RetrievalResultsView::showPreview(int row) {
  if (row < 0 || row >= stories_.size()) {
    preview_->clear();
    return;
  }
  const RankedStory& s = stories_[row];
  QString html = QString("<p><b>#%1 \u00b7 story %2%3 \u00b7 cosine %4</b>%5</p>")
                     .arg(row + 1)
                     .arg(s.id)
                     .arg(s.held_out ? " (held out)" : "")
                     .arg(s.score, 0, 'f', 3)
                     .arg(s.id == marked_id_ ? " <span style='color:#1b7f3a'>\u2713 the true match</span>" : "");
  html += "<p><i>its summary:</i> " + s.summary.toHtmlEscaped() + "</p>";
  html += "<p>" + s.story.toHtmlEscaped().replace("\n", "<br>") + "</p>";
  preview_->setHtml(html);
}

QString RetrievalResultsView::previewText() const { return preview_->toPlainText(); }

void RetrievalResultsView::onItemActivated(QTreeWidgetItem* item) {
  if (item != nullptr) Q_EMIT markRequested(item->data(StoryColumn, Qt::UserRole).toLongLong());
}

void RetrievalResultsView::showContextMenu(const QPoint& at) {
  QTreeWidgetItem* item = list_->itemAt(at);
  if (item == nullptr) return;
  QMenu menu(this);
  menu.addAction("Mark as the true match", this, [this, item]() { onItemActivated(item); });
  menu.exec(list_->viewport()->mapToGlobal(at));
}

}  // namespace mixerlab::widgets
