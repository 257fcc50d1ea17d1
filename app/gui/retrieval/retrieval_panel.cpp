// RetrievalPanel (see retrieval_panel.h).
#include "app/gui/retrieval/retrieval_panel.h"

#include <algorithm>

#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include "app/gui/common/background_job.h"
#include "app/gui/common/elided_text.h"
#include "app/gui/launch/run_launcher.h"
#include "core/runs/run_directory.h"
#include "widgets/retrieval/retrieval_results_view.h"

namespace mixerlab::gui {

namespace {
QString q(const std::string& s) { return QString::fromStdString(s); }

widgets::RankedStory rankedStory(const SearchHit& hit) {
  return {hit.id, hit.score, q(hit.story), q(hit.summary), hit.held_out};
}

bool isDatasetFolder(const QString& path) { return QFileInfo::exists(path + "/retrieval.json"); }
}  // namespace

RetrievalPanel::RetrievalPanel(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(buildControls());
  showCorpusChoice();
  splitter_ = new QSplitter(Qt::Horizontal, this);
  splitter_->setChildrenCollapsible(false);
  placeholder_ = new QLabel(tr("Add one or two embedding models (Add run, Add folder) to search the corpus with them.\n"
                               "The first time a model meets a corpus, every summary and story is embedded once "
                               "(kept under the project's retrieval/ folder)."),
                            this);
  placeholder_->setAlignment(Qt::AlignCenter);
  placeholder_->setWordWrap(true);
  layout->addWidget(placeholder_, 1);
  layout->addWidget(splitter_, 1);
  status_ = new QLabel(this);
  status_->setObjectName("retrieval-status");
  status_->setWordWrap(true);  // a long message wraps, never widens the window
  layout->addWidget(status_);
  typing_timer_ = new QTimer(this);
  typing_timer_->setSingleShot(true);
  typing_timer_->setInterval(kTypingPauseMs);
  connect(typing_timer_, &QTimer::timeout, this, &RetrievalPanel::searchNow);
  updateControls();
}

RetrievalPanel::~RetrievalPanel() { stop(); }

QWidget* RetrievalPanel::buildControls() {
  auto* controls = new QWidget(this);
  auto* layout = new QVBoxLayout(controls);
  layout->setContentsMargins(0, 0, 0, 0);

  auto* sources = new QHBoxLayout;
  corpus_box_ = new QComboBox(controls);
  corpus_box_->setObjectName("retrieval-corpus");
  corpus_box_->addItem(tr("Synthetic stories"), static_cast<int>(RetrievalCorpusKind::Synthetic));
  corpus_box_->addItem(tr("JSON Lines pairs file..."), static_cast<int>(RetrievalCorpusKind::PairsFile));
  corpus_box_->setToolTip(
      tr("The (summary, story) pairs to search; the last 10% are held out for accuracy. The project's corpus has no "
         "summaries: each story's opening sentence is its query"));
  connect(corpus_box_, &QComboBox::activated, this, &RetrievalPanel::onCorpusPicked);
  synthetic_count_ = new QSpinBox(controls);
  synthetic_count_->setObjectName("retrieval-synthetic-count");
  synthetic_count_->setSingleStep(100);
  synthetic_count_->setSuffix(tr(" stories"));
  connect(synthetic_count_, &QSpinBox::editingFinished, this, [this]() {
    const int64_t n = synthetic_count_->value();
    if (corpus_.kind == RetrievalCorpusKind::Synthetic && n != corpus_.synthetic_count) {
      setCorpus(RetrievalCorpus::synthetic(n, corpus_.seed));
    } else if (corpus_.kind == RetrievalCorpusKind::StoryCorpus && n != corpus_.max_stories) {
      RetrievalCorpus more = corpus_;
      more.max_stories = n;
      setCorpus(more);
    }
  });
  CheckpointPickerOptions picker_options;
  picker_options.max_columns = kMaxColumns;
  picker_options.offers_untrained = true;
  picker_options.columns_noun = tr("models side by side");
  picker_options.tab_name = tr("the Retrieve tab");
  picker_options.add_run_object_name = "retrieval-add-run";
  picker_options.add_folder_object_name = "retrieval-add-folder";
  picker_options.add_folder_text = tr("Add folder...");
  picker_options.add_folder_tooltip =
      tr("A run folder, a checkpoint folder, or a dataset folder from `mixerlab retrieval build`");
  picker_options.folder_dialog_title = tr("Add a run folder, a checkpoint folder or a retrieval dataset folder");
  picker_ = new CheckpointPicker(
      picker_options, [this](const ColumnRequest& request) { return addModel(request.path, request.untrained); },
      [this]() {
        QStringList keys;
        for (const auto& c : columns_) keys << c->key;
        return keys;
      },
      controls);
  connect(picker_, &CheckpointPicker::refused, this, &RetrievalPanel::showStatus);
  candidates_ = new QSpinBox(controls);
  candidates_->setObjectName("retrieval-candidates");
  candidates_->setRange(2, 100000);
  candidates_->setValue(32);
  candidates_->setToolTip(
      tr("Held-out accuracy: each held-out summary picks its story among this many held-out "
         "stories (its own and randomly drawn others; at most one fewer than the held-out stories)"));
  connect(candidates_, &QSpinBox::editingFinished, this, [this]() {
    for (auto& c : columns_) evaluateColumn(*c);
  });
  sources->addWidget(new QLabel(tr("Corpus:"), controls));
  sources->addWidget(corpus_box_);
  sources->addWidget(synthetic_count_);
  sources->addSpacing(16);
  sources->addWidget(new QLabel(tr("Models:"), controls));
  sources->addWidget(picker_);
  train_ = new QToolButton(controls);
  train_->setObjectName("retrieval-train");
  train_->setText(tr("Train retrieval model"));
  train_->setToolTip(
      tr("Train the research's retrieval model (a bidirectional mixer over c = 32 inputs, fewer for "
         "a small corpus) on a column's embeddings, as a run of the project: its curves appear in "
         "the Loss curves tab"));
  train_->setPopupMode(QToolButton::InstantPopup);
  auto* train_menu = new QMenu(train_);
  connect(train_menu, &QMenu::aboutToShow, this, &RetrievalPanel::populateTrainMenu);
  train_->setMenu(train_menu);
  sources->addWidget(train_);
  sources->addSpacing(16);
  sources->addWidget(new QLabel(tr("Accuracy over"), controls));
  sources->addWidget(candidates_);
  sources->addWidget(new QLabel(tr("candidates"), controls));
  sources->addStretch(1);
  layout->addLayout(sources);

  auto* query_row = new QHBoxLayout;
  query_edit_ = new QLineEdit(controls);
  query_edit_->setObjectName("retrieval-query");
  query_edit_->setPlaceholderText(tr("Type a summary or a few keywords; the stories rank as you type"));
  query_edit_->setClearButtonEnabled(true);
  connect(query_edit_, &QLineEdit::textEdited, this, [this]() { typing_timer_->start(); });
  connect(query_edit_, &QLineEdit::returnPressed, this, &RetrievalPanel::searchNow);
  held_out_box_ = new QComboBox(controls);
  held_out_box_->setObjectName("retrieval-held-out");
  held_out_box_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  held_out_box_->setMinimumContentsLength(28);
  held_out_box_->setToolTip(tr("A held-out summary: its story becomes the marked true match"));
  connect(held_out_box_, &QComboBox::activated, this, &RetrievalPanel::onHeldOutPicked);
  result_count_ = new QSpinBox(controls);
  result_count_->setObjectName("retrieval-result-count");
  result_count_->setRange(1, 200);
  result_count_->setValue(10);
  result_count_->setPrefix(tr("top "));
  connect(result_count_, &QSpinBox::valueChanged, this, [this]() { typing_timer_->start(); });
  query_row->addWidget(new QLabel(tr("Query:"), controls));
  query_row->addWidget(query_edit_, 3);
  query_row->addWidget(held_out_box_, 2);
  query_row->addWidget(result_count_);
  layout->addLayout(query_row);

  auto* mark_row = new QHBoxLayout;
  mark_label_ = new QLabel(controls);
  mark_label_->setObjectName("retrieval-mark");
  mark_label_->setTextFormat(Qt::PlainText);
  clear_mark_ = new QPushButton(tr("Clear mark"), controls);
  clear_mark_->setObjectName("retrieval-clear-mark");
  connect(clear_mark_, &QPushButton::clicked, this, &RetrievalPanel::clearMark);
  mark_row->addWidget(mark_label_, 1);
  mark_row->addWidget(clear_mark_);
  layout->addLayout(mark_row);
  refreshHeldOutList();
  updateMarkLabel();
  return controls;
}

void RetrievalPanel::setRunsDirectory(const QString& runs_directory) {
  const bool another_project = !runs_directory_.isEmpty() && runs_directory != runs_directory_;
  if (another_project) {  // the previous project's columns and rankings go
    while (columnCount() > 0) removeColumn(columnCount() - 1);
  }
  runs_directory_ = runs_directory;
  picker_->setRunsDirectory(runs_directory);
  if (!runs_directory.isEmpty()) setDatasetsRoot(QFileInfo(runs_directory).absoluteDir().filePath("retrieval"));
}

void RetrievalPanel::setDatasetsRoot(const QString& root) { datasets_root_ = root; }

void RetrievalPanel::setProjectCorpus(const std::optional<RetrievalCorpus>& corpus) {
  const int index = corpus_box_->findData(static_cast<int>(RetrievalCorpusKind::StoryCorpus));
  if (index >= 0) corpus_box_->removeItem(index);
  project_corpus_ = corpus;
  if (corpus) {
    const QString name = QFileInfo(q(corpus->story_source)).fileName();
    corpus_box_->insertItem(1, tr("Project corpus (%1)").arg(name), static_cast<int>(RetrievalCorpusKind::StoryCorpus));
    corpus_box_->setItemData(1, q(corpus->story_source), Qt::ToolTipRole);
  }
  if (corpus_.kind != RetrievalCorpusKind::StoryCorpus) return showCorpusChoice();
  // The columns searched the previous project's stories: they move to this project's (or to the
  // synthetic stories when there is none), keeping the number of stories chosen.
  if (!corpus) return setCorpus(RetrievalCorpus::synthetic(RetrievalCorpus{}.synthetic_count));
  const bool same = corpus->story_source == corpus_.story_source && corpus->story_format == corpus_.story_format &&
                    corpus->json_field == corpus_.json_field;
  if (same) return showCorpusChoice();
  RetrievalCorpus next = *corpus;
  next.max_stories = corpus_.max_stories;
  setCorpus(next);
}

void RetrievalPanel::showCorpusChoice() {
  const int index = corpus_box_->findData(static_cast<int>(corpus_.kind));
  if (index >= 0) corpus_box_->setCurrentIndex(index);
  const int pairs_item = corpus_box_->findData(static_cast<int>(RetrievalCorpusKind::PairsFile));
  corpus_box_->setItemText(
      pairs_item, corpus_.kind == RetrievalCorpusKind::PairsFile ? q(corpus_.label()) : tr("JSON Lines pairs file..."));
  const bool counted = corpus_.kind != RetrievalCorpusKind::PairsFile;
  synthetic_count_->setVisible(counted);
  if (corpus_.kind == RetrievalCorpusKind::Synthetic) {
    synthetic_count_->setRange(20, 20000);
    synthetic_count_->setPrefix(QString());
    synthetic_count_->setValue(static_cast<int>(corpus_.synthetic_count));
    synthetic_count_->setToolTip(tr("How many synthetic stories to generate"));
  } else if (corpus_.kind == RetrievalCorpusKind::StoryCorpus) {
    synthetic_count_->setRange(20, 1000000);
    synthetic_count_->setPrefix(tr("first "));
    synthetic_count_->setValue(static_cast<int>(std::min<int64_t>(corpus_.max_stories, 1000000)));
    synthetic_count_->setToolTip(
        tr("How many of the corpus's stories to read and embed (its first ones; stories of a single sentence are "
           "skipped)"));
  }
}

void RetrievalPanel::setCorpus(const RetrievalCorpus& corpus) {
  corpus_ = corpus;
  showCorpusChoice();
  clearMark();
  held_out_.clear();
  refreshHeldOutList();
  for (auto& c : columns_) {
    if (c->dataset_dir.isEmpty()) openColumn(*c);
  }
}

QString RetrievalPanel::addModel(const QString& path, bool untrained) {
  auto column = std::make_unique<Column>();
  if (isDatasetFolder(path)) {
    column->dataset_dir = QFileInfo(path).absoluteFilePath();
    column->label = QFileInfo(path).fileName() + tr(" (dataset folder)");
    column->key = column->dataset_dir;
    if (const QString refused = picker_->refusal(column->key, column->label); !refused.isEmpty()) return refused;
  } else {
    CheckpointColumn picked;
    const QString error = picker_->choose({path, untrained}, &picked);  // room, resolved, not yet a column
    if (!error.isEmpty()) return error;
    const CheckpointChoice& choice = picked.checkpoint;
    column->key = picked.key();
    column->source = picked.source();
    column->label = (untrained ? tr("untrained ") : QString()) + choice.label() + "  (" + choice.architecture + ")";
    if (datasets_root_.isEmpty()) {  // <project>/retrieval, as setRunsDirectory() picks
      const RunPaths run = RunPaths::ofCheckpoint(std::filesystem::absolute(choice.checkpoint_dir.toStdString()));
      setDatasetsRoot(q((run.projectFolder() / "retrieval").string()));
    }
  }
  column->view = new widgets::RetrievalResultsView(splitter_);
  column->view->setTitle(column->label,
                         column->dataset_dir.isEmpty() ? q(column->source.path.string()) : column->dataset_dir);
  connect(column->view, &widgets::RetrievalResultsView::markRequested, this, &RetrievalPanel::markTrueMatch);
  widgets::RetrievalResultsView* view = column->view;
  connect(column->view, &widgets::RetrievalResultsView::removeRequested, this, [this, view]() {
    for (int i = 0; i < columnCount(); ++i) {
      if (columns_[static_cast<size_t>(i)]->view == view) return removeColumn(i);
    }
  });
  splitter_->addWidget(column->view);
  columns_.push_back(std::move(column));
  openColumn(*columns_.back());
  updateControls();
  return {};
}

void RetrievalPanel::removeColumn(int index) {
  if (index < 0 || index >= columnCount()) return;
  Column& c = *columns_[static_cast<size_t>(index)];
  stopWorker(c);
  c.view->hide();
  c.view->deleteLater();
  columns_.erase(columns_.begin() + index);
  if (index == 0) {
    held_out_.clear();
    for (auto& other : columns_) {
      if (other->ready) {
        held_out_ = other->info.held_out;
        held_out_first_id_ = other->info.train_count;
        break;
      }
    }
    refreshHeldOutList();
  }
  updateControls();
}

widgets::RetrievalResultsView* RetrievalPanel::column(int index) const {
  return index >= 0 && index < columnCount() ? columns_[static_cast<size_t>(index)]->view : nullptr;
}

bool RetrievalPanel::isReady(int index) const {
  return index >= 0 && index < columnCount() && columns_[static_cast<size_t>(index)]->ready;
}

int RetrievalPanel::indexOf(const Column* column) const {
  for (size_t i = 0; i < columns_.size(); ++i) {
    if (columns_[i].get() == column) return static_cast<int>(i);
  }
  return -1;
}

// A new worker on the column's job, which stops the one before: the old worker's reports still
// queued are dropped, and the column's reports never outlive it (the column owns its job).
void RetrievalPanel::startWorker(Column& c) {
  if (!c.job) c.job = std::make_unique<BackgroundJob>("retrieval");
  auto* worker = new RetrievalWorker;
  const Column* column = &c;
  c.job->forward(worker, &RetrievalWorker::progress, [column](qint64 done, qint64 total) {
    column->view->setProgress(done, total);
    column->view->setStatus(tr("embedding the corpus with this model (once; kept for next time)"));
  });
  c.job->forward(worker, &RetrievalWorker::opened,
                 [this, column](const RetrievalColumnInfo& info) { onOpened(column, info); });
  c.job->forward(worker, &RetrievalWorker::failed, [this, column](const QString& error) { onFailed(column, error); });
  c.job->forward(worker, &RetrievalWorker::results,
                 [this, column](int request, const SearchResult& r, double ms) { onResults(column, request, r, ms); });
  c.job->forward(worker, &RetrievalWorker::accuracy,
                 [this, column](qint64 candidates, double top1, double top5, qint64 queries) {
                   onAccuracy(column, candidates, top1, top5, queries);
                 });
  c.worker = worker;
  c.job->startResident(worker, columnCount());  // the columns share the cores
}

void RetrievalPanel::stopWorker(Column& c) {
  if (c.job) c.job->stop();  // a build in progress ends at its next batch (cancelled)
  c.worker = nullptr;
  c.ready = false;
}

void RetrievalPanel::openColumn(Column& c) {
  stopWorker(c);  // a corpus change mid-build cancels the old build
  startWorker(c);
  c.ready = false;
  c.view->clearResults();
  c.view->setStatus(tr("loading..."));
  RetrievalOpenJob job;
  if (c.dataset_dir.isEmpty()) {
    job.corpus = corpus_;
    job.source = c.source;
    job.datasets_root =
        (datasets_root_.isEmpty() ? QDir::current().filePath("retrieval") : datasets_root_).toStdString();
  } else {
    job.dataset_dir = c.dataset_dir.toStdString();
  }
  RetrievalWorker* worker = c.worker;
  c.job->post([worker, job]() { worker->open(job); });
}

void RetrievalPanel::onOpened(const Column* column, const RetrievalColumnInfo& info) {
  const int index = indexOf(column);
  if (index < 0) return;
  Column& c = *columns_[static_cast<size_t>(index)];
  c.ready = true;
  c.info = info;
  c.view->setProgress(0, 0);
  c.view->setTitle(c.label, tr("%1\nembedding model: %2 (%3), width %4\n%5 stories, %6 held out")
                                .arg(info.dataset_dir, info.model_label, info.architecture)
                                .arg(info.width)
                                .arg(info.stories)
                                .arg(info.stories - info.train_count));
  c.view->setStatus(tr("%1 stories; measuring held-out accuracy...").arg(info.stories));
  bool first_ready = true;
  for (int i = 0; i < index; ++i) first_ready = first_ready && !columns_[static_cast<size_t>(i)]->ready;
  if (held_out_.empty() || first_ready) {
    held_out_ = info.held_out;
    held_out_first_id_ = info.train_count;
    refreshHeldOutList();
  }
  showStatus(info.built ? tr("embedded %1 stories and summaries with %2").arg(info.stories).arg(c.label)
                        : tr("%1: reused the embeddings in %2").arg(c.label, info.dataset_dir));
  evaluateColumn(c);
  searchColumn(c);
  Q_EMIT columnReady(index);
}

void RetrievalPanel::onFailed(const Column* column, const QString& error) {
  const int index = indexOf(column);
  if (index < 0) return;
  Column& c = *columns_[static_cast<size_t>(index)];
  c.view->setError(error);
  showStatus(c.label + ": " + error);
  if (!c.ready) Q_EMIT columnFailed(index, error);
}

void RetrievalPanel::searchColumn(Column& c) {
  if (!c.ready) return;
  const QString text = query_edit_->text().trimmed();
  if (text.isEmpty()) {
    c.view->clearResults(tr("type a summary or a few keywords, or pick a held-out summary"));
    return;
  }
  RetrievalWorker* worker = c.worker;
  const int request = request_;
  const std::string query = text.toStdString();
  const qint64 k = result_count_->value(), marked = marked_id_;
  // Typing fast never queues up work: a query replaced by the next before it starts is skipped.
  c.job->postLatest([worker, request, query, k, marked]() { worker->search(request, query, k, marked); });
}

void RetrievalPanel::searchNow() {
  typing_timer_->stop();
  ++request_;
  for (auto& c : columns_) searchColumn(*c);
}

void RetrievalPanel::onResults(const Column* column, int request, const SearchResult& result, double query_ms) {
  const int index = indexOf(column);
  if (index < 0 || request != request_) return;  // a newer query is on its way
  Column& c = *columns_[static_cast<size_t>(index)];
  QVector<widgets::RankedStory> stories;
  for (const SearchHit& hit : result.hits) stories.push_back(rankedStory(hit));
  c.view->setResults(stories, marked_id_, result.marked_rank, result.marked_score, c.info.stories, query_ms);
  Q_EMIT resultsShown(index);
}

void RetrievalPanel::evaluateColumn(Column& c) {
  if (!c.ready) return;
  RetrievalWorker* worker = c.worker;
  const qint64 candidates = candidates_->value();
  c.job->post([worker, candidates]() { worker->evaluate(candidates); });
}

void RetrievalPanel::onAccuracy(const Column* column, qint64 candidates, double top1, double top5, qint64 queries) {
  const int index = indexOf(column);
  if (index < 0) return;
  Column& c = *columns_[static_cast<size_t>(index)];
  c.view->setStatus(tr("held-out accuracy: top-1 %1%, top-5 %2%  (%3 summaries, each among %4 candidates; chance %5%)")
                        .arg(100 * top1, 0, 'f', 1)
                        .arg(100 * top5, 0, 'f', 1)
                        .arg(queries)
                        .arg(candidates)
                        .arg(100.0 / static_cast<double>(std::max<qint64>(1, candidates)), 0, 'f', 1));
  Q_EMIT accuracyShown(index);
}

void RetrievalPanel::setQuery(const QString& text) {
  query_edit_->setText(text);
  typing_timer_->start();
}

QString RetrievalPanel::query() const { return query_edit_->text(); }

void RetrievalPanel::refreshHeldOutList() {
  held_out_box_->clear();
  held_out_box_->addItem(held_out_.empty() ? tr("(held-out summaries appear once a model is ready)")
                                           : tr("pick a held-out summary (%1)...").arg(held_out_.size()));
  for (size_t i = 0; i < held_out_.size(); ++i) {
    held_out_box_->addItem(QString("%1. %2").arg(i + 1).arg(elidedOneLine(held_out_[i].summary, 90)));
    held_out_box_->setItemData(static_cast<int>(i + 1), q(held_out_[i].summary), Qt::ToolTipRole);
  }
  held_out_box_->setEnabled(!held_out_.empty());
}

bool RetrievalPanel::chooseHeldOut(int index) {
  if (index < 0 || index >= heldOutCount()) return false;
  held_out_box_->setCurrentIndex(index + 1);
  query_edit_->setText(q(held_out_[static_cast<size_t>(index)].summary));
  markTrueMatch(held_out_first_id_ + index);  // searches again with the mark
  return true;
}

void RetrievalPanel::onHeldOutPicked(int combo_index) {
  if (combo_index >= 1) chooseHeldOut(combo_index - 1);
}

void RetrievalPanel::markTrueMatch(qint64 story_id) {
  marked_id_ = story_id;
  marked_story_.clear();
  const qint64 held = story_id - held_out_first_id_;
  if (held >= 0 && held < heldOutCount()) marked_story_ = q(held_out_[static_cast<size_t>(held)].story);
  for (const auto& c : columns_) {  // a training story: its text is in some column's results
    for (int r = 0; marked_story_.isEmpty() && r < c->view->resultCount(); ++r) {
      if (c->view->result(r).id == story_id) marked_story_ = c->view->result(r).story;
    }
  }
  updateMarkLabel();
  searchNow();
}

void RetrievalPanel::clearMark() {
  marked_id_ = -1;
  marked_story_.clear();
  if (held_out_box_ != nullptr) held_out_box_->setCurrentIndex(0);
  updateMarkLabel();
  if (!columns_.empty()) searchNow();
}

void RetrievalPanel::updateMarkLabel() {
  clear_mark_->setEnabled(marked_id_ >= 0);
  mark_label_->setText(
      marked_id_ < 0 ? tr("True match: none marked (pick a held-out summary, or double-click a result)")
                     : tr("True match: story %1  \u2014  %2").arg(marked_id_).arg(elidedOneLine(marked_story_, 140)));
}

void RetrievalPanel::setCandidates(int candidates) {
  candidates_->setValue(candidates);
  for (auto& c : columns_) evaluateColumn(*c);
}

int RetrievalPanel::candidates() const { return candidates_->value(); }
void RetrievalPanel::setResultCount(int k) { result_count_->setValue(k); }

void RetrievalPanel::onCorpusPicked(int combo_index) {
  const auto kind = static_cast<RetrievalCorpusKind>(corpus_box_->itemData(combo_index).toInt());
  if (kind == RetrievalCorpusKind::Synthetic) {
    if (corpus_.kind != kind) setCorpus(RetrievalCorpus::synthetic(RetrievalCorpus{}.synthetic_count));
    return;
  }
  if (kind == RetrievalCorpusKind::StoryCorpus) {
    if (project_corpus_ && corpus_.kind != kind) setCorpus(*project_corpus_);
    return;
  }
  const QString file =
      QFileDialog::getOpenFileName(this, tr("Open a JSON Lines file of {\"summary\", \"story\"} pairs"),
                                   runs_directory_, tr("JSON Lines (*.jsonl *.json);;All files (*)"));
  if (file.isEmpty()) {
    showCorpusChoice();  // back to the corpus in use
    return;
  }
  setCorpus(RetrievalCorpus::file(file.toStdString()));
}

QString RetrievalPanel::trainRetrievalModel(int index, int epochs, QString* error) {
  auto fail = [error](const QString& message) {
    if (error != nullptr) *error = message;
    return QString();
  };
  if (index < 0 || index >= columnCount() || !isReady(index)) return fail(tr("that column is not ready"));
  if (runs_directory_.isEmpty()) return fail(tr("open a project first: the retrieval run is one of its runs"));
  const Column& c = *columns_[static_cast<size_t>(index)];
  // The research's c = 32, capped by the stories the sampler draws candidates from (the held-out
  // ones for evaluation, the training ones for training).
  const qint64 context = std::min<qint64>({32, c.info.stories - c.info.train_count, c.info.train_count});
  if (context < 2) return fail(tr("too few stories to train a retrieval model: use a larger corpus"));
  const QString base = "retrieval-" + QFileInfo(c.info.dataset_dir).fileName();
  QString name = base;
  for (int n = 2; QFileInfo::exists(runs_directory_ + "/" + name); ++n) name = base + "-" + QString::number(n);
  LocalLaunchTarget target(findCliExecutable());
  const QString launch_error =
      target.start({"retrieval", "train", "--data", c.info.dataset_dir, "--out", runs_directory_ + "/" + name,
                    "--epochs", QString::number(epochs), "--context", QString::number(context)},
                   QFileInfo(runs_directory_).absolutePath());
  if (!launch_error.isEmpty()) return fail(launch_error);
  showStatus(tr("training the retrieval model on %1's embeddings as run %2: its curves are in the Loss curves tab")
                 .arg(c.label, name));
  return name;
}

void RetrievalPanel::populateTrainMenu() {
  QMenu* menu = train_->menu();
  menu->clear();
  for (int i = 0; i < columnCount(); ++i) {
    QAction* action =
        menu->addAction(tr("on %1's embeddings").arg(columns_[static_cast<size_t>(i)]->label), this, [this, i]() {
          QString error;
          if (trainRetrievalModel(i, 20, &error).isEmpty()) showStatus(error);
        });
    action->setEnabled(isReady(i));
  }
  if (columns_.empty()) menu->addAction(tr("(add a model first)"))->setEnabled(false);
}

void RetrievalPanel::updateControls() {
  picker_->refresh();
  placeholder_->setVisible(columns_.empty());
  splitter_->setVisible(!columns_.empty());
}

void RetrievalPanel::stop() {
  typing_timer_->stop();
  for (auto& c : columns_) stopWorker(*c);
}

void RetrievalPanel::showStatus(const QString& text) { status_->setText(text); }
QString RetrievalPanel::statusText() const { return status_->text(); }

}  // namespace mixerlab::gui
