// The side-by-side generation panel (see generation_panel.h). Each column's GenerationWorker runs
// on a BackgroundJob of its own; this file lays the panel out and turns their reports into column
// views.
#include "app/gui/generation/generation_panel.h"

#include <algorithm>
#include <limits>

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTimer>
#include <QVBoxLayout>

#include "app/gui/common/background_job.h"
#include "app/gui/common/elided_text.h"
#include "app/gui/common/eval_split_loader.h"
#include "app/gui/generation/generation_settings_bridge.h"
#include "app/gui/generation/generation_worker.h"
#include "app/gui/generation/generator_cache.h"
#include "widgets/forms/sampling_settings_form.h"
#include "widgets/generation/generation_column_view.h"
#include "widgets/generation/token_probability_scale.h"

namespace mixerlab::gui {

namespace {

widgets::TokenView tokenView(const GeneratedToken& token) {
  widgets::TokenView view;
  view.id = token.id;
  view.text = QString::fromStdString(token.text);
  view.prob = token.prob;
  for (const TokenAlternative& alt : token.top)
    view.top.push_back({alt.id, QString::fromStdString(alt.text), alt.prob});
  return view;
}

QString rate(double tokens_per_s) { return QString::number(tokens_per_s, 'f', tokens_per_s < 100 ? 1 : 0); }

}  // namespace

GenerationPanel::GenerationPanel(QWidget* parent) : QWidget(parent) {
  cache_ = std::make_shared<GeneratorCache>();
  eval_loader_ = new EvalSplitLoader(static_cast<int>(evalPromptSourceDocuments(kEvalPrompts)), this);
  connect(eval_loader_, &EvalSplitLoader::loaded, this, &GenerationPanel::onEvalDocumentsRead);
  flush_timer_ = new QTimer(this);
  flush_timer_->setSingleShot(true);
  flush_timer_->setInterval(kFlushIntervalMs);
  connect(flush_timer_, &QTimer::timeout, this, &GenerationPanel::flushTokens);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(6, 6, 6, 6);
  layout->addWidget(buildControls());
  splitter_ = new QSplitter(Qt::Horizontal, this);
  splitter_->setObjectName("generation_columns");
  splitter_->setChildrenCollapsible(false);
  splitter_->setMinimumHeight(200);  // the stories need room: the main window's docks give way
  placeholder_ =
      new QLabel(tr("Add two to four checkpoints to compare: a run of the project (Add run) or any checkpoint folder.\n"
                    "Every column gets the same prompt and the same settings, seed included."),
                 splitter_);
  placeholder_->setAlignment(Qt::AlignCenter);
  placeholder_->setWordWrap(true);
  splitter_->addWidget(placeholder_);
  truth_view_ = new widgets::GenerationColumnView(splitter_);
  truth_view_->setObjectName("truth_column");
  truth_view_->setRemovable(false);
  truth_view_->setTitle(tr("True continuation"));
  splitter_->addWidget(truth_view_);
  truth_view_->hide();
  layout->addWidget(splitter_, 1);
  updateControls();
}

GenerationPanel::~GenerationPanel() { stop(); }  // the eval loader joins its own thread

QWidget* GenerationPanel::buildControls() {
  auto* controls = new QWidget(this);
  auto* layout = new QVBoxLayout(controls);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(4);

  auto* sources = new QHBoxLayout;
  CheckpointPickerOptions picker_options;
  picker_options.max_columns = kMaxColumns;
  picker_options.tab_name = tr("the Generate tab");
  picker_options.add_folder_text = tr("Add checkpoint folder...");
  picker_options.add_folder_tooltip = tr("Add a run folder (its latest checkpoint) or a checkpoint folder");
  picker_ = new CheckpointPicker(
      picker_options, [this](const ColumnRequest& request) { return addColumn(request); },
      [this]() {
        QStringList keys;
        for (const Column& c : columns_) keys << c.choice.checkpoint_dir;  // CheckpointColumn::key of a trained one
        return keys;
      },
      controls);
  connect(picker_, &CheckpointPicker::refused, this, &GenerationPanel::showStatus);
  eval_box_ = new QComboBox(controls);
  eval_box_->setObjectName("eval_prompts");
  eval_box_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  eval_box_->setMinimumContentsLength(40);
  eval_box_->addItem(tr("typed prompt"));
  connect(eval_box_, &QComboBox::activated, this, &GenerationPanel::onEvalPromptPicked);
  sources->addWidget(new QLabel(tr("Checkpoints:"), controls));
  sources->addWidget(picker_);
  sources->addSpacing(16);
  sources->addWidget(new QLabel(tr("Prompt:"), controls));
  sources->addWidget(eval_box_, 1);
  layout->addLayout(sources);

  prompt_edit_ = new QPlainTextEdit(controls);
  prompt_edit_->setObjectName("prompt");
  prompt_edit_->setPlaceholderText(tr("Type a prompt, or pick one from the eval split (empty: a new story)"));
  prompt_edit_->setFixedHeight(prompt_edit_->fontMetrics().lineSpacing() * 3 + 12);
  connect(prompt_edit_, &QPlainTextEdit::textChanged, this, &GenerationPanel::onPromptEdited);
  layout->addWidget(prompt_edit_);

  form_ = new widgets::SamplingSettingsForm(samplingFormFields(), controls);
  // The fields start at the declared defaults (the CLI's: sampling at temperature 1); the panel
  // opens on the Greedy preset, whose deterministic stories are the first thing to compare.
  form_->choosePreset("Greedy");
  layout->addWidget(form_);

  auto* actions = new QHBoxLayout;
  generate_ = new QPushButton(tr("Generate"), controls);
  generate_->setObjectName("generate");
  generate_->setShortcut(QKeySequence("Ctrl+Return"));
  generate_->setToolTip(tr("Generate every column at once (Ctrl+Return)"));
  connect(generate_, &QPushButton::clicked, this, [this]() {
    const QString error = generate();
    if (!error.isEmpty()) showStatus(error);
  });
  cancel_ = new QPushButton(tr("Cancel"), controls);
  cancel_->setObjectName("cancel");
  connect(cancel_, &QPushButton::clicked, this, &GenerationPanel::cancel);
  save_ = new QPushButton(tr("Save comparison..."), controls);
  save_->setObjectName("save");
  save_->setToolTip(tr("Save the last round as JSON (per-token probabilities) and Markdown"));
  connect(save_, &QPushButton::clicked, this, &GenerationPanel::onSave);
  status_ = new QLabel(controls);
  status_->setObjectName("panel_status");
  status_->setWordWrap(true);  // a long message (a refused path and its fix) wraps, never widens the window
  actions->addWidget(generate_);
  actions->addWidget(cancel_);
  actions->addWidget(save_);
  new_seed_ = new QCheckBox(tr("new seed each round"), controls);
  new_seed_->setObjectName("new-seed-each-round");
  new_seed_->setChecked(true);
  new_seed_->setToolTip(
      tr("Each Generate after the first adds 1 to the seed, so sampled stories differ from round to round; "
         "every column of a round shares its seed, shown in the status. Untick to repeat a round exactly."));
  actions->addWidget(new_seed_);
  samples_ = new QSpinBox(controls);
  samples_->setObjectName("samples-per-column");
  samples_->setRange(1, kMaxSamples);
  samples_->setValue(1);
  samples_->setPrefix(tr("samples: "));
  samples_->setToolTip(
      tr("Stories per column, decoded as one batch: sample i uses seed + i (pick one in the "
         "column's header). Needs a sampling preset: greedy gives the same story for every seed."));
  actions->addWidget(samples_);
  actions->addWidget(status_, 1);
  actions->addWidget(new widgets::TokenProbabilityLegend(controls));
  layout->addLayout(actions);
  return controls;
}

void GenerationPanel::setRunsDirectory(const QString& runs_directory) {
  const bool another_project = !runs_directory_.isEmpty() && runs_directory != runs_directory_;
  runs_directory_ = runs_directory;
  picker_->setRunsDirectory(runs_directory);
  if (!another_project) return;
  // Another project was opened: the previous one's columns and results go.
  stop();
  while (columnCount() > 0) removeColumn(columnCount() - 1);
  showStatus(QString());
}

QString GenerationPanel::addCheckpoint(const QString& path) { return addColumn({path, false}); }

QString GenerationPanel::addColumn(const ColumnRequest& request) {
  if (isGenerating()) return tr("wait for the generation to end (or cancel it) before changing the columns");
  // The settings are shared, so a second column of the same checkpoint would repeat the first:
  // the picker refuses it, and an untrained twin (nothing to generate from).
  CheckpointColumn picked;
  const QString error = picker_->choose(request, &picked);
  if (!error.isEmpty()) {
    showStatus(error);
    return error;
  }
  const CheckpointChoice& choice = picked.checkpoint;
  Column column;
  column.choice = choice;
  column.view = new widgets::GenerationColumnView(splitter_);
  column.view->setTitle(choice.label(), choice.checkpoint_dir);
  column.view->setDetails(choice.architecture);
  column.view->setStatus(tr("ready"));
  widgets::GenerationColumnView* view = column.view;
  connect(view, &widgets::GenerationColumnView::removeRequested, this, [this, view]() {
    for (int i = 0; i < columnCount(); ++i) {
      if (columns_[i].view == view) removeColumn(i);
    }
  });
  connect(view, &widgets::GenerationColumnView::sampleChosen, this, [this, view]() {
    for (Column& c : columns_) {
      if (c.view == view) showSample(c);
    }
  });
  splitter_->insertWidget(columnCount() + 1, view);  // after the placeholder, before the true continuation
  columns_.push_back(column);
  has_results_ = false;
  if (columnCount() == 1) loadEvalPrompts();
  showStatus(tr("added %1 (%2)").arg(choice.label(), choice.architecture));
  updateControls();
  return {};
}

void GenerationPanel::removeColumn(int index) {
  if (isGenerating() || index < 0 || index >= columnCount()) return;
  columns_[index].view->deleteLater();
  columns_[index].view->hide();
  columns_.erase(columns_.begin() + index);
  has_results_ = false;
  if (index == 0 && !columns_.empty()) loadEvalPrompts();
  updateControls();
}

void GenerationPanel::setSamplesPerColumn(int samples) { samples_->setValue(samples); }
int GenerationPanel::samplesPerColumn() const { return samples_->value(); }

void GenerationPanel::setPrompt(const QString& prompt) { prompt_edit_->setPlainText(prompt); }
QString GenerationPanel::prompt() const { return prompt_edit_->toPlainText(); }

void GenerationPanel::loadEvalPrompts() {
  if (!columns_.empty()) eval_loader_->request(columns_.front().choice.checkpoint_dir);
}

void GenerationPanel::onEvalDocumentsRead(const QString& checkpoint_dir, const std::vector<std::string>& documents,
                                          const QString& error) {
  eval_prompts_ = evalPromptsFromDocuments(documents, kEvalPrompts, kEvalPromptWords);
  const std::vector<EvalPrompt>& prompts = eval_prompts_;
  eval_run_.clear();
  for (const Column& c : columns_) {
    if (c.choice.checkpoint_dir == checkpoint_dir) eval_run_ = c.choice.run;
  }
  const QSignalBlocker block(eval_box_);
  while (eval_box_->count() > 1) eval_box_->removeItem(1);
  for (size_t i = 0; i < prompts.size(); ++i) {
    eval_box_->addItem(tr("eval %1: %2").arg(i + 1).arg(elidedOneLine(prompts[i].prompt, 70)));
  }
  eval_box_->setToolTip(error.isEmpty()
                            ? tr("Prompts from the eval split of %1, with the text that really followed").arg(eval_run_)
                            : tr("No eval prompts: %1").arg(error));
  eval_chosen_ = -1;
  eval_box_->setCurrentIndex(0);
  showTruth(false);
  Q_EMIT evalPromptsLoaded();
}

bool GenerationPanel::chooseEvalPrompt(int index) {
  if (index < 0 || index >= evalPromptCount()) return false;
  {
    const QSignalBlocker block(prompt_edit_);
    prompt_edit_->setPlainText(QString::fromStdString(eval_prompts_[index].prompt));
  }
  eval_chosen_ = index;
  eval_box_->setCurrentIndex(index + 1);
  truth_view_->setDetails(tr("eval split of %1, document %2").arg(eval_run_).arg(index + 1));
  truth_view_->setStatus(tr("what followed the prompt in the eval document"));
  truth_view_->setPlainStory(prompt(), QString::fromStdString(eval_prompts_[index].continuation));
  showTruth(true);
  return true;
}

void GenerationPanel::onEvalPromptPicked(int combo_index) {
  if (combo_index == 0) {
    eval_chosen_ = -1;
    showTruth(false);
    return;
  }
  chooseEvalPrompt(combo_index - 1);
}

void GenerationPanel::onPromptEdited() {
  if (eval_chosen_ < 0 || prompt() == QString::fromStdString(eval_prompts_[eval_chosen_].prompt)) return;
  eval_chosen_ = -1;  // an edited eval prompt is a typed prompt: its true continuation no longer applies
  const QSignalBlocker block(eval_box_);
  eval_box_->setCurrentIndex(0);
  showTruth(false);
}

void GenerationPanel::showTruth(bool shown) { truth_view_->setVisible(shown); }

QString GenerationPanel::generate() {
  if (isGenerating()) return tr("a generation is running");
  if (columns_.empty()) return tr("add a checkpoint first");
  const int samples = samplesPerColumn();
  if (samples > 1 && form_->values().greedy) {
    return tr(
        "greedy decoding gives the same story for every seed: pick a sampling preset (Balanced, Creative) "
        "or set samples to 1");
  }
  if (new_seed_->isChecked() && rounds_started_ > 0) {  // another press, other samples: after the last seed used
    widgets::SamplingValues values = form_->values();
    const quint64 next = values.seed + quint64(round_samples_);
    values.seed = next + quint64(samples) - 1 > quint64(std::numeric_limits<int>::max()) ? 0 : next;
    form_->setValues(values);
  }
  const GenerationSettings settings = toGenerationSettings(form_->values());
  try {
    validateGeneration(settings);
  } catch (const std::exception& e) {
    return QString::fromStdString(e.what());
  }
  ++rounds_started_;
  round_prompt_ = prompt().toStdString();
  round_settings_ = settings;
  round_samples_ = samples;
  round_truth_.reset();
  if (eval_chosen_ >= 0) round_truth_ = eval_prompts_[eval_chosen_].continuation;
  has_results_ = false;
  while (column_jobs_.size() < columns_.size()) {
    auto* job = new BackgroundJob(QString("generation-%1").arg(column_jobs_.size()), this);
    connect(job, &BackgroundJob::finished, this, [this]() {
      if (!isGenerating()) onRoundFinished();  // the round's last column
    });
    column_jobs_.push_back(job);
  }
  for (int i = 0; i < columnCount(); ++i) {
    Column& c = columns_[i];
    c.results.clear();
    c.error.clear();
    c.tokens = 0;
    c.stories = QVector<QVector<widgets::TokenView>>(samples);
    c.shown_tokens = 0;
    c.view->setSamples(samples, settings.sampling.seed);
    c.view->startStory(prompt());
    const bool cached = cache_->contains(c.choice.checkpoint_dir.toStdString());
    c.view->setStatus(cached ? tr("starting...") : tr("loading the model..."));
    GenerationJob job;
    job.column = i;
    job.checkpoint_dir = c.choice.checkpoint_dir.toStdString();
    job.prompt = round_prompt_;
    job.settings = settings;
    job.samples = samples;
    job.cache = cache_;
    auto* worker = new GenerationWorker(std::move(job));
    BackgroundJob* background = column_jobs_[i];
    background->forward(worker, &GenerationWorker::loaded, this, &GenerationPanel::onLoaded);
    background->forward(worker, &GenerationWorker::tokenReady, this, &GenerationPanel::onToken);
    background->forward(worker, &GenerationWorker::finished, this, &GenerationPanel::onFinished);
    background->forward(worker, &GenerationWorker::failed, this, &GenerationPanel::onFailed);
    background->start(worker, columnCount());  // the columns share the cores
  }
  const QString seeds = samples == 1 ? tr("seed %1").arg(settings.sampling.seed)
                                     : tr("%1 samples, seeds %2 to %3")
                                           .arg(samples)
                                           .arg(settings.sampling.seed)
                                           .arg(settings.sampling.seed + quint64(samples) - 1);
  showStatus(tr("generating %1 columns (%2, %3)...").arg(columnCount()).arg(form_->presetText(), seeds));
  updateControls();
  return {};
}

void GenerationPanel::cancel() {
  if (!isGenerating()) return;
  for (BackgroundJob* job : column_jobs_) job->cancel();
  showStatus(tr("cancelling..."));
}

void GenerationPanel::stop() {
  for (BackgroundJob* job : column_jobs_) job->stop();
}

bool GenerationPanel::isGenerating() const {
  return std::any_of(column_jobs_.begin(), column_jobs_.end(),
                     [](const BackgroundJob* job) { return job->isRunning(); });
}

GeneratorCache& GenerationPanel::generatorCache() { return *cache_; }
QString GenerationPanel::statusText() const { return status_->text(); }
bool GenerationPanel::hasResults() const { return has_results_; }

QString GenerationPanel::finishReason(int column, int sample) const {
  const Column& c = columns_.at(column);
  if (sample >= 0 && sample < static_cast<int>(c.results.size())) {
    return QString::fromStdString(finishReasonName(c.results[sample].finish));
  }
  return c.error.isEmpty() ? QString() : QString("failed");
}

void GenerationPanel::onLoaded(int column, const QString& architecture, const QString& decoder) {
  if (column >= columnCount()) return;
  Column& c = columns_[column];
  c.decoder = decoder;
  c.view->setDetails(tr("%1 \u00b7 %2 decoder").arg(architecture, decoder));
  c.view->setStatus(tr("generating..."));
}

void GenerationPanel::onToken(int column, int sample, const GeneratedToken& token, double tokens_per_s) {
  if (column >= columnCount()) return;
  Column& c = columns_[column];
  if (sample < 0 || sample >= c.stories.size()) return;
  c.stories[sample].push_back(tokenView(token));
  c.live_tokens_per_s = tokens_per_s;
  ++c.tokens;
  if (!flush_timer_->isActive()) flush_timer_->start();
}

void GenerationPanel::flushTokens() {
  for (Column& c : columns_) {
    const int shown = c.view->shownSample();
    if (shown >= c.stories.size() || c.shown_tokens >= c.stories[shown].size()) continue;
    c.view->appendTokens(c.stories[shown].mid(c.shown_tokens));
    c.shown_tokens = c.stories[shown].size();
    if (c.results.empty()) {
      c.view->setStatus(tr("%1 tokens \u00b7 %2 tokens/s").arg(c.tokens).arg(rate(c.live_tokens_per_s)));
    }
  }
}

void GenerationPanel::showSample(Column& c) {
  const int shown = c.view->shownSample();
  c.view->startStory(QString::fromStdString(round_prompt_));
  c.shown_tokens = 0;
  if (shown < c.stories.size()) {
    c.view->appendTokens(c.stories[shown]);
    c.shown_tokens = c.stories[shown].size();
  }
  if (!c.results.empty()) showFinishedSample(c);
}

void GenerationPanel::onFinished(int column, const std::vector<GenerationResult>& results) {
  if (column >= columnCount()) return;
  Column& c = columns_[column];
  c.results = results;
  flushTokens();  // the shown sample's last tokens before its final status
  showFinishedSample(c);
}

void GenerationPanel::showFinishedSample(Column& c) {
  const int shown = std::min(c.view->shownSample(), static_cast<int>(c.results.size()) - 1);
  const GenerationResult& result = c.results[shown];
  // A stop string cuts the story inside the token that completed it.
  c.view->truncateGenerated(static_cast<int>(QString::fromStdString(result.text).size()));
  c.view->setDetails(tr("%1 \u00b7 %2 decoder \u00b7 context %3")
                         .arg(c.choice.architecture, QString::fromStdString(result.decoder))
                         .arg(result.context_length));
  QString status = tr("%1 tokens \u00b7 %2 tokens/s \u00b7 finished: %3")
                       .arg(result.tokens.size())
                       .arg(rate(result.tokens_per_s))
                       .arg(QString::fromStdString(finishReasonName(result.finish)));
  if (c.results.size() > 1) {
    status = tr("sample %1 of %2: %3").arg(shown + 1).arg(c.results.size()).arg(status);
    // The batch's rate: every sample's tokens over the batch's time (each result holds that time).
    int64_t batch_tokens = 0;
    for (const GenerationResult& r : c.results) batch_tokens += static_cast<int64_t>(r.tokens.size());
    const double batch_s = (result.prefill_ms + result.decode_ms) / 1000.0;
    status += tr(" \u00b7 batch of %1: %2 tokens/s")
                  .arg(c.results.size())
                  .arg(rate(batch_s > 0 ? static_cast<double>(batch_tokens) / batch_s : 0.0));
  }
  if (result.prompt_dropped_tokens > 0) {
    status +=
        tr(" \u00b7 prompt cut by %1 tokens (lower Max new tokens to keep more)").arg(result.prompt_dropped_tokens);
    c.view->showPromptCut(QString::fromStdString(result.prompt_seen_text),
                          static_cast<int>(result.prompt_dropped_tokens));
  }
  if (result.tokens_past_context > 0) {
    // Sliding and recurrent models go on where training never reached: said, never silent.
    status += QString(" \u00b7 <b>%1</b>")
                  .arg(tr("the last %1 tokens are past the trained context of %2 (%3)")
                           .arg(result.tokens_past_context)
                           .arg(result.context_length)
                           .arg(QString::fromStdString(result.context_policy))
                           .toHtmlEscaped());
  }
  c.view->setStatus(status);
}

void GenerationPanel::onFailed(int column, const QString& error) {
  if (column >= columnCount()) return;
  flushTokens();
  Column& c = columns_[column];
  c.error = error;
  c.view->setStatus(QString("<span style='color:#b00020'>%1</span>").arg(tr("failed: %1").arg(error).toHtmlEscaped()));
}

void GenerationPanel::onRoundFinished() {
  has_results_ = true;
  int failed = 0, cancelled = 0;
  for (const Column& c : columns_) {
    failed += c.results.empty() ? 1 : 0;
    cancelled += std::any_of(c.results.begin(), c.results.end(),
                             [](const GenerationResult& r) { return r.finish == FinishReason::kCancelled; })
                     ? 1
                     : 0;
  }
  QString summary = tr("done: %1 columns").arg(columnCount());
  if (cancelled > 0) summary += tr(", %1 cancelled").arg(cancelled);
  if (failed > 0) summary += tr(", %1 failed").arg(failed);
  showStatus(summary);
  updateControls();
  Q_EMIT roundFinished();
}

GenerationComparison GenerationPanel::comparison() const {
  GenerationComparison out;
  out.prompt = round_prompt_;
  out.settings = round_settings_;
  out.samples = round_samples_;
  out.true_continuation = round_truth_;
  for (const Column& c : columns_) {
    ComparisonColumn column;
    column.checkpoint = c.choice.checkpoint_dir.toStdString();
    column.run = c.choice.run.toStdString();
    column.step = c.choice.step.toStdString();
    column.architecture = c.choice.architecture.toStdString();
    column.samples = c.results;
    column.error = c.error.toStdString();
    out.columns.push_back(column);
  }
  return out;
}

QString GenerationPanel::saveComparison(const QString& json_path) {
  if (!has_results_) return tr("generate first: there is no finished round to save");
  const QFileInfo info(json_path);
  const QString markdown_path = info.dir().filePath(info.completeBaseName() + ".md");
  try {
    mixerlab::saveComparison(comparison(), json_path.toStdString(), markdown_path.toStdString());
  } catch (const std::exception& e) {
    return QString::fromStdString(e.what());
  }
  showStatus(tr("saved %1 and %2").arg(json_path, markdown_path));
  return {};
}

void GenerationPanel::onSave() {
  const QString start = runs_directory_.isEmpty() ? QString() : QFileInfo(runs_directory_).absolutePath();
  const QString file = QFileDialog::getSaveFileName(this, tr("Save comparison (JSON, with a Markdown file beside it)"),
                                                    start + "/comparison.json", tr("JSON (*.json)"));
  if (file.isEmpty()) return;
  const QString error = saveComparison(file.endsWith(".json") ? file : file + ".json");
  if (!error.isEmpty()) showStatus(error);
}

void GenerationPanel::updateControls() {
  const bool running = isGenerating();
  generate_->setEnabled(!running && !columns_.empty());
  cancel_->setEnabled(running);
  save_->setEnabled(!running && has_results_);
  picker_->setBusy(running);
  for (const Column& c : columns_) c.view->setRemoveEnabled(!running);
  placeholder_->setVisible(columns_.empty());
}

void GenerationPanel::showStatus(const QString& text) { status_->setText(text); }

}  // namespace mixerlab::gui
