// The inversion inspector (see inversion_panel.h): its layout, the models, the input, and starting
// and following the jobs. What the results look like is in inversion_panel_results.cpp.
#include "app/gui/inversion/inversion_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSplitter>
#include <QTabWidget>
#include <QVBoxLayout>

#include "app/gui/common/background_job.h"
#include "app/gui/common/elided_text.h"
#include "app/gui/common/eval_split_loader.h"
#include "app/gui/inversion/inversion_settings_bridge.h"
#include "app/gui/inversion/inversion_worker.h"
#include "app/gui/inversion/over_training_view.h"
#include "app/gui/inversion/over_training_worker.h"
#include "core/analysis/inversion_convergence.h"
#include "widgets/forms/inversion_settings_form.h"
#include "widgets/inversion/inversion_diff_view.h"
#include "widgets/inversion/inversion_layer_chart.h"
#include "widgets/inversion/inversion_loss_plot.h"
#include "widgets/inversion/inversion_model_row.h"

namespace mixerlab::gui {

namespace {

// What the charts' two measures mean, in plain words, under the charts.
QString inversionMeasuresCaption() {
  return QObject::tr(
      "<b>Hamming distance</b>: the share of the text's tokens the inversion did not get back (0 = every "
      "token recovered, 1 = none). Solid lines count a token as recovered when it is among the top-k "
      "decoded tokens, dashed lines only when it is decoded first (exact). <b>L1 / |target|</b>: how far "
      "the recovered input's layer output still is from the real text's, relative to the size of the "
      "real one (lower is closer).");
}

QLabel* heading(const QString& text, QWidget* parent) {
  auto* label = new QLabel("<b>" + text + "</b>", parent);
  label->setContentsMargins(0, 6, 0, 0);
  return label;
}

QString lossText(double loss) { return QString::number(loss, 'g', 4); }

}  // namespace

InversionPanel::InversionPanel(QWidget* parent) : QWidget(parent) {
  background_ = new BackgroundJob("inversion", this);
  connect(background_, &BackgroundJob::finished, this, &InversionPanel::onJobFinished);
  eval_loader_ = new EvalSplitLoader(kEvalDocuments, this);
  connect(eval_loader_, &EvalSplitLoader::loaded, this, &InversionPanel::onEvalDocumentsRead);

  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  auto* splitter = new QSplitter(Qt::Horizontal, this);
  // The left column: models, input and settings scroll; the actions and status stay in view.
  auto* left = new QWidget(splitter);
  auto* left_layout = new QVBoxLayout(left);
  left_layout->setContentsMargins(0, 0, 0, 0);
  auto* scroll = new QScrollArea(left);
  scroll->setWidgetResizable(true);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  scroll->setFrameShape(QFrame::NoFrame);
  QWidget* controls = buildControls();
  scroll->setWidget(controls);
  left_layout->addWidget(scroll, 1);
  left_layout->addWidget(buildActions());
  left->setMinimumWidth(controls->sizeHint().width() + scroll->verticalScrollBar()->sizeHint().width() + 4);
  left->setMaximumWidth(460);
  splitter->addWidget(left);
  splitter->addWidget(buildResults());
  splitter->setStretchFactor(1, 1);
  splitter->setChildrenCollapsible(false);
  layout->addWidget(splitter);
  refreshModelRows();
  updateControls();
}

InversionPanel::~InversionPanel() { stop(); }  // the eval loader joins its own thread

QWidget* InversionPanel::buildControls() {
  auto* controls = new QWidget(this);
  auto* layout = new QVBoxLayout(controls);
  layout->setContentsMargins(4, 0, 8, 4);
  layout->setSpacing(4);

  auto* models_line = new QHBoxLayout;
  models_line->addWidget(heading(tr("Models"), controls), 1);
  CheckpointPickerOptions picker_options;
  picker_options.max_columns = kMaxModels;
  picker_options.offers_untrained = true;
  picker_options.columns_noun = tr("models");
  picker_options.tab_name = tr("the Inspect tab");
  picker_options.add_folder_text = tr("Folder...");
  picker_options.add_folder_tooltip = tr("Add a run folder or a checkpoint folder");
  picker_ = new CheckpointPicker(
      picker_options, [this](const ColumnRequest& request) { return addModel(request.path, request.untrained); },
      [this]() {
        QStringList keys;
        for (const Model& m : models_) keys << m.choice.key();
        return keys;
      },
      controls);
  connect(picker_, &CheckpointPicker::refused, this, &InversionPanel::showStatus);
  models_line->addWidget(picker_);
  layout->addLayout(models_line);
  model_list_ = new QVBoxLayout;
  model_list_->setSpacing(3);
  no_models_ = new QLabel(tr("Add up to four checkpoints, e.g. a masked mixer and a transformer, and their untrained "
                             "twins (+ untrained)."),
                          controls);
  no_models_->setWordWrap(true);
  model_list_->addWidget(no_models_);
  layout->addLayout(model_list_);

  layout->addWidget(heading(tr("Input"), controls));
  input_box_ = new QComboBox(controls);
  input_box_->setObjectName("input_source");
  input_box_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  input_box_->setMinimumContentsLength(20);
  input_box_->addItem(tr("typed text"));
  connect(input_box_, &QComboBox::activated, this, &InversionPanel::onInputPicked);
  layout->addWidget(input_box_);
  text_edit_ = new QPlainTextEdit(controls);
  text_edit_->setObjectName("input_text");
  text_edit_->setPlaceholderText(tr("Type the text to invert, or pick an eval-split document above"));
  text_edit_->setFixedHeight(text_edit_->fontMetrics().lineSpacing() * 4 + 12);
  connect(text_edit_, &QPlainTextEdit::textChanged, this, &InversionPanel::onTextEdited);
  layout->addWidget(text_edit_);

  layout->addWidget(heading(tr("Settings"), controls));
  form_ = new widgets::InversionSettingsForm(inversionFormFields(), controls);
  layout->addWidget(form_);

  layout->addStretch(1);
  return controls;
}

QWidget* InversionPanel::buildActions() {
  auto* box = new QWidget(this);
  auto* layout = new QVBoxLayout(box);
  layout->setContentsMargins(4, 4, 8, 0);
  layout->setSpacing(2);
  auto* actions = new QHBoxLayout;
  invert_ = new QPushButton(tr("Invert"), box);
  invert_->setObjectName("invert");
  invert_->setShortcut(QKeySequence("Ctrl+Return"));
  invert_->setToolTip(
      tr("Invert the input at the chosen layers of every model, one model after the other (Ctrl+Return)"));
  connect(invert_, &QPushButton::clicked, this, [this]() {
    const QString error = invert();
    if (!error.isEmpty()) showStatus(error);
  });
  cancel_ = new QPushButton(tr("Cancel"), box);
  cancel_->setObjectName("cancel");
  connect(cancel_, &QPushButton::clicked, this, &InversionPanel::cancel);
  save_ = new QPushButton(tr("Save JSON..."), box);
  save_->setObjectName("save");
  save_->setToolTip(tr("Save every result (per layer and token) and the over-training grid as JSON"));
  connect(save_, &QPushButton::clicked, this, &InversionPanel::onSave);
  actions->addWidget(invert_);
  actions->addWidget(cancel_);
  actions->addWidget(save_);
  layout->addLayout(actions);
  status_ = new QLabel(box);
  status_->setObjectName("panel_status");
  status_->setWordWrap(true);
  layout->addWidget(status_);
  return box;
}

QWidget* InversionPanel::buildResults() {
  pages_ = new QTabWidget(this);
  pages_->setObjectName("inversion_pages");
  auto* layers_page = new QSplitter(Qt::Vertical, pages_);
  auto* plots_area = new QWidget(layers_page);
  auto* plots_layout = new QVBoxLayout(plots_area);
  plots_layout->setContentsMargins(0, 0, 0, 0);
  plots_layout->setSpacing(2);
  auto* plots = new QSplitter(Qt::Horizontal, plots_area);
  plots_layout->addWidget(plots, 1);
  auto* caption = new QLabel(inversionMeasuresCaption(), plots_area);
  caption->setObjectName("inversion_measures_caption");
  caption->setWordWrap(true);
  plots_layout->addWidget(caption);
  chart_ = new widgets::InversionLayerChart(plots);
  chart_->setObjectName("inversion_chart");
  connect(chart_, &widgets::InversionLayerChart::layerClicked, this, &InversionPanel::showLayer);
  loss_plot_ = new widgets::InversionLossPlot(plots);
  plots->addWidget(chart_);
  plots->addWidget(loss_plot_);
  plots->setStretchFactor(0, 3);
  plots->setStretchFactor(1, 2);

  auto* diff_area = new QWidget(layers_page);
  auto* diff_layout = new QVBoxLayout(diff_area);
  diff_layout->setContentsMargins(0, 2, 0, 0);
  diff_layout->setSpacing(2);
  auto* diff_line = new QHBoxLayout;
  layer_box_ = new QComboBox(diff_area);
  layer_box_->setObjectName("diff_layer");
  layer_box_->setToolTip(tr("The layer whose recovered tokens show below (or click the chart)"));
  connect(layer_box_, &QComboBox::activated, this,
          [this](int index) { showLayer(layer_box_->itemData(index).toInt()); });
  show_padding_ = new QCheckBox(tr("show padding"), diff_area);
  show_padding_->setObjectName("show_padding");
  connect(show_padding_, &QCheckBox::toggled, this, [this](bool on) { diff_->setShowPadding(on); });
  auto* legend = new QLabel(tr("<span style='background:#fde2a0'>&nbsp;top-k only&nbsp;</span> "
                               "<span style='background:#f4aaa4'>&nbsp;missed&nbsp;</span> &nbsp;hover a token for "
                               "the true token's rank"),
                            diff_area);
  diff_line->addWidget(new QLabel(tr("Token diff at layer"), diff_area));
  diff_line->addWidget(layer_box_);
  diff_line->addWidget(show_padding_);
  diff_line->addStretch(1);
  diff_line->addWidget(legend);
  diff_layout->addLayout(diff_line);
  layer_summary_ = new QLabel(diff_area);
  layer_summary_->setObjectName("layer_summary");
  layer_summary_->setWordWrap(true);
  diff_layout->addWidget(layer_summary_);
  diff_ = new widgets::InversionDiffView(diff_area);
  diff_->setObjectName("inversion_diff");
  diff_layout->addWidget(diff_, 1);
  layers_page->addWidget(plots_area);
  layers_page->addWidget(diff_area);
  layers_page->setStretchFactor(0, 1);
  layers_page->setStretchFactor(1, 1);
  pages_->addTab(layers_page, tr("Layers"));

  over_training_ = new OverTrainingView(pages_);
  connect(over_training_, &OverTrainingView::startRequested, this, [this]() {
    const QString error = invertOverTraining();
    if (!error.isEmpty()) over_training_->showMessage(error);
  });
  connect(over_training_, &OverTrainingView::runChanged, this, &InversionPanel::refreshDepth);
  pages_->addTab(over_training_, tr("Over training"));
  return pages_;
}

void InversionPanel::showOverTrainingPage() { pages_->setCurrentWidget(over_training_); }

void InversionPanel::setRunsDirectory(const QString& runs_directory) {
  const bool another_project = !runs_directory_.isEmpty() && runs_directory != runs_directory_;
  runs_directory_ = runs_directory;
  picker_->setRunsDirectory(runs_directory);
  over_training_->setRunsDirectory(runs_directory);
  if (!another_project) return;
  // Another project was opened: the previous one's models and results go.
  stop();
  while (modelCount() > 0) removeModel(modelCount() - 1);
  showStatus(QString());
}

QString InversionPanel::addModel(const QString& path, bool untrained) {
  if (isRunning()) return tr("wait for the inversion to end (or cancel it) before changing the models");
  Model model;
  const QString error = picker_->choose({path, untrained}, &model.choice);  // room, resolved, not yet listed
  if (!error.isEmpty()) {
    showStatus(error);
    return error;
  }
  model.row = new widgets::InversionModelRow(this);
  widgets::InversionModelRow* row = model.row;
  connect(row, &widgets::InversionModelRow::removeRequested, this, [this, row]() {
    for (int i = 0; i < modelCount(); ++i) {
      if (models_[i].row == row) removeModel(i);
    }
  });
  connect(row, &widgets::InversionModelRow::twinRequested, this, [this, row]() {
    for (int i = 0; i < modelCount(); ++i) {
      if (models_[i].row == row) addUntrainedTwin(i);
    }
  });
  model_list_->addWidget(row);
  models_.push_back(model);
  has_results_ = false;
  if (modelCount() == 1) eval_loader_->request(models_.front().choice.checkpoint.checkpoint_dir);
  refreshModelRows();
  refreshDepth();
  showStatus(tr("added %1 (%2, layers 0..%3)")
                 .arg(models_.back().choice.label(), models_.back().choice.checkpoint.architecture)
                 .arg(models_.back().choice.depth));
  updateControls();
  return {};
}

QString InversionPanel::addUntrainedTwin(int index) {
  if (index < 0 || index >= modelCount()) return tr("no model %1").arg(index);
  return addModel(models_[index].choice.checkpoint.checkpoint_dir, true);
}

void InversionPanel::removeModel(int index) {
  if (isRunning() || index < 0 || index >= modelCount()) return;
  models_[index].row->hide();
  models_[index].row->deleteLater();
  models_.erase(models_.begin() + index);
  if (index == 0 && !models_.empty()) eval_loader_->request(models_.front().choice.checkpoint.checkpoint_dir);
  refreshModelRows();
  refreshDepth();
  showResults();
  updateControls();
}

void InversionPanel::refreshModelRows() {
  for (int i = 0; i < modelCount(); ++i) {
    const Model& m = models_[i];
    m.row->setTitle(m.choice.label(), widgets::InversionLayerChart::modelColour(i), m.choice.checkpoint.checkpoint_dir);
    m.row->setDetails(tr("%1 \u00b7 layers 0..%2%3")
                          .arg(m.choice.checkpoint.architecture)
                          .arg(m.choice.depth)
                          .arg(m.choice.untrained ? tr(" \u00b7 fresh init, same config") : QString()));
    m.row->setTwinAvailable(!m.choice.untrained);
    if (m.state == ModelState::kReady) m.row->setStatus(tr("ready"));
  }
  no_models_->setVisible(models_.empty());
}

void InversionPanel::refreshDepth() {
  // Layer boxes for the deepest model, and the over-training run (the form serves both pages).
  int depth = 0;
  for (const Model& m : models_) depth = std::max(depth, m.choice.depth);
  CheckpointColumn run;
  if (!over_training_->runDirectory().isEmpty() &&
      chooseCheckpointColumn(over_training_->runDirectory(), false, &run).isEmpty())
    depth = std::max(depth, run.depth);
  form_->setDepth(depth);
}

void InversionPanel::setText(const QString& text) { text_edit_->setPlainText(text); }
QString InversionPanel::text() const { return text_edit_->toPlainText(); }

void InversionPanel::onEvalDocumentsRead(const QString&, const std::vector<std::string>& documents,
                                         const QString& error) {
  eval_documents_ = documents;
  const QSignalBlocker block(input_box_);
  while (input_box_->count() > 1) input_box_->removeItem(1);
  for (size_t i = 0; i < documents.size(); ++i)
    input_box_->addItem(tr("eval %1: %2").arg(i + 1).arg(elidedOneLine(documents[i], 60)));
  input_box_->setToolTip(error.isEmpty() ? tr("Documents of the first model's eval split (never trained on)")
                                         : tr("No eval documents: %1").arg(error));
  eval_chosen_ = -1;
  input_box_->setCurrentIndex(0);
  Q_EMIT evalDocumentsLoaded();
}

bool InversionPanel::chooseEvalDocument(int index) {
  if (index < 0 || index >= evalDocumentCount()) return false;
  {
    const QSignalBlocker block(text_edit_);
    text_edit_->setPlainText(QString::fromStdString(eval_documents_[index]));
  }
  eval_chosen_ = index;
  input_box_->setCurrentIndex(index + 1);
  return true;
}

void InversionPanel::onInputPicked(int combo_index) {
  if (combo_index == 0) {
    eval_chosen_ = -1;
    return;
  }
  chooseEvalDocument(combo_index - 1);
}

void InversionPanel::onTextEdited() {
  if (eval_chosen_ < 0 || text() == QString::fromStdString(eval_documents_[eval_chosen_])) return;
  eval_chosen_ = -1;  // an edited eval document is a typed text
  const QSignalBlocker block(input_box_);
  input_box_->setCurrentIndex(0);
}

QString InversionPanel::invert() {
  if (isRunning()) return tr("an inversion is running");
  if (models_.empty()) return tr("add a model first");
  if (text().trimmed().isEmpty()) return tr("type an input text or pick an eval document");
  const widgets::InversionFormValues values = form_->values();
  InversionSettings settings = toInversionSettings(values);
  settings.layers = {0};
  try {
    validateInversion(settings);
  } catch (const std::exception& e) {
    return QString::fromStdString(e.what());
  }
  InversionJob job;
  job.texts = {text().toStdString()};
  job.settings = settings;
  for (int i = 0; i < modelCount(); ++i) {
    InversionModelJob m;
    m.model = i;
    m.source = models_[i].choice.source();
    m.layers = layersFor(values, models_[i].choice.depth);
    if (m.layers.empty())
      return tr("%1 has layers 0..%2: tick one of them").arg(models_[i].choice.label()).arg(models_[i].choice.depth);
    job.models.push_back(m);
  }
  for (int i = 0; i < modelCount(); ++i) {
    Model& m = models_[i];
    m.layers = job.models[i].layers;
    m.results.clear();
    m.error.clear();
    m.state = ModelState::kWaiting;
    m.row->setStatus(tr("waiting"));
  }
  run_texts_ = job.texts;
  run_settings_ = settings;
  has_results_ = false;
  chart_->setSeries({}, settings.top_k);
  loss_plot_->setCurves({}, -1);
  diff_->clear(tr("Inverting..."));
  layer_summary_->clear();
  pages_->setCurrentIndex(0);
  job_ = Job::kInspect;
  auto* worker = new InversionWorker(std::move(job));
  background_->forward(worker, &InversionWorker::modelStarted, this, &InversionPanel::onModelStarted);
  background_->forward(worker, &InversionWorker::progress, this, &InversionPanel::onProgress);
  background_->forward(worker, &InversionWorker::finished, this, &InversionPanel::onFinished);
  background_->forward(worker, &InversionWorker::failed, this, &InversionPanel::onFailed);
  background_->forward(worker, &InversionWorker::skipped, this, &InversionPanel::onSkipped);
  background_->start(worker);
  showStatus(tr("inverting %1 model(s), one after the other: %2 steps, \u03b7 %3, seed %4...")
                 .arg(modelCount())
                 .arg(settings.iterations)
                 .arg(settings.learning_rate)
                 .arg(settings.seed));
  updateControls();
  return {};
}

QString InversionPanel::invertOverTraining() {
  if (isRunning()) return tr("an inversion is running");
  const QString run = over_training_->runDirectory();
  if (run.isEmpty()) return tr("choose a run with checkpoints");
  CheckpointColumn choice;
  const QString error = chooseCheckpointColumn(run, false, &choice);
  if (!error.isEmpty()) return error;
  const widgets::InversionFormValues values = form_->values();
  InversionSettings settings = toInversionSettings(values);
  settings.layers = layersFor(values, choice.depth);
  if (settings.layers.empty())
    return tr("%1 has layers 0..%2: tick one of them").arg(choice.checkpoint.run).arg(choice.depth);
  try {
    validateInversion(settings);
  } catch (const std::exception& e) {
    return QString::fromStdString(e.what());
  }
  OverTrainingJob job;
  job.run_dir = run.toStdString();
  job.settings = settings;
  job.eval_documents = over_training_->evalDocuments();
  if (job.eval_documents == 0) {
    if (text().trimmed().isEmpty()) return tr("type an input text, or choose eval documents as the inputs");
    job.texts = {text().toStdString()};
  }
  over_training_settings_ = settings;
  over_training_run_ = choice.checkpoint.run;
  job_ = Job::kOverTraining;
  auto* worker = new OverTrainingWorker(std::move(job));
  background_->forward(worker, &OverTrainingWorker::progress, this, &InversionPanel::onOverTrainingProgress);
  background_->forward(worker, &OverTrainingWorker::finished, this, &InversionPanel::onOverTrainingFinished);
  background_->forward(worker, &OverTrainingWorker::failed, this, &InversionPanel::onOverTrainingFailed);
  background_->start(worker);
  over_training_->setProgress(tr("starting..."), 0);
  showStatus(tr("inverting %1 over training...").arg(choice.checkpoint.run));
  updateControls();
  return {};
}

void InversionPanel::cancel() {
  if (!isRunning()) return;
  background_->cancel();
  showStatus(tr("cancelling..."));
}

void InversionPanel::stop() { background_->stop(); }
bool InversionPanel::isRunning() const { return background_->isRunning(); }
QString InversionPanel::statusText() const { return status_->text(); }

void InversionPanel::onModelStarted(int model) {
  if (model >= modelCount()) return;
  models_[model].state = ModelState::kRunning;
  models_[model].row->setProgress(0, 1, tr("loading the model..."));
}

void InversionPanel::onProgress(int model, const InversionProgress& p) {
  if (model >= modelCount()) return;
  const qint64 done = p.layer_index * p.iterations + p.iteration;
  models_[model].row->setProgress(done, p.layer_count * p.iterations,
                                  tr("layer %1 (%2/%3) \u00b7 step %4/%5 \u00b7 L1 %6")
                                      .arg(p.layer)
                                      .arg(p.layer_index + 1)
                                      .arg(p.layer_count)
                                      .arg(p.iteration)
                                      .arg(p.iterations)
                                      .arg(lossText(p.loss)));
}

void InversionPanel::onOverTrainingProgress(int column, int columns, const InversionProgress& p) {
  const double total = static_cast<double>(columns) * p.layer_count * p.iterations;
  const double done = (static_cast<double>(column) * p.layer_count + p.layer_index) * p.iterations + p.iteration;
  over_training_->setProgress(tr("%1 (column %2/%3) \u00b7 layer %4 (%5/%6) \u00b7 step %7/%8 \u00b7 L1 %9")
                                  .arg(column == 0 ? tr("untrained twin") : tr("checkpoint %1").arg(column))
                                  .arg(column + 1)
                                  .arg(columns)
                                  .arg(p.layer)
                                  .arg(p.layer_index + 1)
                                  .arg(p.layer_count)
                                  .arg(p.iteration)
                                  .arg(p.iterations)
                                  .arg(lossText(p.loss)),
                              total > 0 ? static_cast<int>(1000 * done / total) : 0);
}

void InversionPanel::onJobFinished() {
  const Job finished = job_;
  job_ = Job::kNone;
  updateControls();
  if (finished == Job::kInspect) {
    has_results_ = true;
    int done = 0, cancelled = 0, failed = 0;
    for (const Model& m : models_) {
      done += m.state == ModelState::kDone ? 1 : 0;
      cancelled += m.state == ModelState::kCancelled || m.state == ModelState::kSkipped ? 1 : 0;
      failed += m.state == ModelState::kFailed ? 1 : 0;
    }
    QString summary = tr("done: %1 of %2 models").arg(done).arg(modelCount());
    if (cancelled > 0) summary += tr(", %1 cancelled").arg(cancelled);
    if (failed > 0) summary += tr(", %1 failed").arg(failed);
    int results = 0, improving = 0;
    for (const Model& m : models_) {
      if (m.state != ModelState::kDone) continue;
      for (const InversionResult& r : m.results) {
        ++results;
        improving += !r.cancelled && inversionStillImproving(r.loss_curve, r.final_loss) ? 1 : 0;
      }
    }
    if (improving > 0) {
      summary += tr(" \u00b7 %1 of %2 inversions were still improving at the last step: raise Iterations "
                    "before reading their distances")
                     .arg(improving)
                     .arg(results);
    }
    showStatus(summary);
    Q_EMIT runFinished();
  } else if (finished == Job::kOverTraining) {
    Q_EMIT overTrainingFinished();
  }
}

void InversionPanel::updateControls() {
  const bool running = isRunning();
  invert_->setEnabled(!running && !models_.empty());
  cancel_->setEnabled(running);
  save_->setEnabled(!running && (has_results_ || over_training_->hasGrid()));
  picker_->setBusy(running);
  for (const Model& m : models_) m.row->setEditable(!running);
  over_training_->setRunning(running);
}

void InversionPanel::showStatus(const QString& text) { status_->setText(text); }

}  // namespace mixerlab::gui
