// The MixerLab main window (see main_window.h).
#include "app/gui/shell/main_window.h"

#include <algorithm>

#include <QAction>
#include <QCloseEvent>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QInputDialog>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QScreen>
#include <QSet>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QToolBar>
#include <QUndoStack>
#include <QVBoxLayout>

#include "app/gui/common/app_settings.h"
#include "app/gui/common/screen_fit.h"
#include "app/gui/common/scrolling_tabs.h"
#include "app/gui/generation/generation_panel.h"
#include "app/gui/inversion/inversion_panel.h"
#include "app/gui/launch/launch_target_selector.h"
#include "app/gui/launch/queue_panel.h"
#include "app/gui/launch/remote_host_dialog.h"
#include "app/gui/launch/reproduce_dialog.h"
#include "app/gui/launch/run_control.h"
#include "app/gui/launch/run_launcher.h"
#include "app/gui/launch/run_queue.h"
#include "app/gui/launch/run_time_estimate.h"
#include "app/gui/project/data_preparation_dialog.h"
#include "app/gui/project/project_document.h"
#include "app/gui/project/run_config_schema.h"
#include "app/gui/project/run_setup_dialog.h"
#include "app/gui/retrieval/retrieval_panel.h"
#include "app/gui/runs/compute_frontier_groups.h"
#include "app/gui/runs/run_group_names.h"
#include "app/gui/runs/run_list_model.h"
#include "app/gui/runs/run_table_filter.h"
#include "app/gui/shell/help_menu.h"
#include "app/gui/tooling/event_loop_latency.h"
#include "core/analysis/retrieval/retrieval_corpus.h"
#include "core/config/project_config.h"
#include "core/config/train_config.h"
#include "core/runs/run_directory.h"
#include "core/runs/run_info.h"
#include "widgets/forms/sweep_dialog.h"
#include "widgets/plots/compute_frontier_view.h"
#include "widgets/plots/loss_plot_widget.h"
#include "widgets/plots/plot_panels.h"
#include "widgets/tables/config_diff_view.h"
#include "widgets/tables/run_comparison.h"

namespace mixerlab::gui {

namespace {
// The project's training corpus as stories to search in the Retrieve tab (nullopt before a project is open).
std::optional<RetrievalCorpus> projectStoryCorpus(const ProjectDocument& document) {
  const ProjectConfig* project = document.parsed();
  if (project == nullptr || project->corpus.train_path.empty()) return std::nullopt;
  return RetrievalCorpus::stories(project->corpus.train_path.string(), project->corpus.format,
                                  project->corpus.json_field, RetrievalCorpus{}.max_stories);
}

}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  control_ = new RunControl(this);
  connect(control_, &RunControl::runUpdated, this, &MainWindow::onRunUpdated);
  connect(control_, &RunControl::launchFailed, this, &MainWindow::onLaunchFailed);
  connect(control_, &RunControl::leftQueue, this,
          [this](const QString& run, const QString& reason) { showStatusNote(run + " left the queue: " + reason); });
  connect(control_, &RunControl::runFolderRemoved, this, [this](const QString& run) {
    forgetRunFolder(run);
    statusBar()->showMessage("the run folder of " + run + " is gone (deleted or moved outside MixerLab)", 15000);
  });
  connect(control_, &RunControl::launchStarted, this,
          [this](const QString& run) { statusBar()->showMessage("started " + run, 8000); });
  connect(control_, &RunControl::queueStarted, this,
          [this](const QString& run) { statusBar()->showMessage("queue started " + run, 5000); });
  document_ = new ProjectDocument(this);
  connect(document_, &ProjectDocument::edited, this, &MainWindow::onProjectEdited);
  connect(document_, &ProjectDocument::writeFailed, this,
          [this](const QString& error) { statusBar()->showMessage(error, 10000); });
  runs_ = new RunListModel(this);
  connect(runs_, &RunListModel::seriesChanged, this, &MainWindow::onSeriesChanged);
  connect(runs_, &RunListModel::pointsAppended, this, &MainWindow::onPointsAppended);
  connect(runs_, &RunListModel::overlayChanged, this, &MainWindow::onOverlayToggled);
  buildUi();
  restoreWindowLayout();
}

void MainWindow::restoreWindowLayout() {
  const AppSettings settings;
  restoreGeometry(settings.windowGeometry());
  if (!restoreState(settings.windowState())) {
    // The first start (no saved layout): the docks take about a third of the height, so the tabs
    // keep the most room; docks size to their contents otherwise and leave the plots a strip.
    QList<QDockWidget*> bottom;
    for (const char* name : {"runs-dock", "log-dock"})
      if (auto* dock = findChild<QDockWidget*>(name)) bottom << dock;
    const int dock_height_px = height() / 3;
    resizeDocks(bottom, QList<int>(bottom.size(), dock_height_px), Qt::Vertical);
  }
  // A geometry saved on a larger screen (or by an older scripted start) is cut to this one: a window
  // bigger than the screen cannot be used, and one beyond what X can draw shows nothing.
  const QSize fitted = sizeWithinScreen(*this, size());
  if (fitted != size()) resize(fitted);
}

void MainWindow::showStatusNote(const QString& note) { statusBar()->showMessage(note, 15000); }

MainWindow::~MainWindow() { control_->stopMonitor(); }

void MainWindow::buildUi() {
  setWindowTitle("MixerLab");
  resize(1200, 760);
  tabs_ = new QTabWidget(this);
  tabs_->setObjectName("central-tabs");
  tabs_->setDocumentMode(true);
  // The docks never squeeze the pages to a strip; the window's minimum still fits the screen.
  tabs_->setMinimumHeight(leastTabsHeightPx(screen() ? screen()->availableGeometry().height() : 700));
  panels_ = new widgets::PlotPanels(tabs_);
  plot_ = panels_->firstPanel();
  // "Mean of seeds" groups runs named <name>-seed<N> / _seed<N> / -s<N> (core/runs/seed_groups.h);
  // "Mean by <field>" runs with the same value of that setting.
  panels_->setGroupOf([this](const QString& run, const QString& grouping) {
    if (grouping == "seed") return seedGroupName(run);
    const QString key = grouping.mid(QString("field:").size());
    return settingGroupName(key, runs_->settings(run).value(key));
  });
  restorePlotView();
  connect(panels_, &widgets::PlotPanels::panelsChanged, this, &MainWindow::savePlotView);
  connect(panels_, &widgets::PlotPanels::runGroupsChanged, this, &MainWindow::refreshComparison);
  connect(panels_, &widgets::PlotPanels::forkRequested, this, &MainWindow::onForkFromPlot);
  addScrollingTab(tabs_, panels_, "Curves");
  generation_ = new GenerationPanel(tabs_);
  addScrollingTab(tabs_, generation_, "Generate");
  inversion_ = new InversionPanel(tabs_);
  addScrollingTab(tabs_, inversion_, "Inspect");
  retrieval_ = new RetrievalPanel(tabs_);
  addScrollingTab(tabs_, retrieval_, "Retrieve");
  frontier_ = new widgets::ComputeFrontierView(tabs_);
  frontier_->setSeriesColours(panels_->seriesColours());  // a group keeps its colour from Curves to Scaling
  addScrollingTab(tabs_, frontier_, "Scaling");
  connect(frontier_, &widgets::ComputeFrontierView::groupingChanged, this, &MainWindow::refreshFrontier);
  connect(frontier_, &widgets::ComputeFrontierView::refreshRequested, this, &MainWindow::refreshFrontier);
  connect(tabs_, &QTabWidget::currentChanged, this, [this] {
    if (currentTabPage(tabs_) == frontier_) refreshFrontier();
  });
  setCentralWidget(tabs_);

  buildRunsDock();

  log_view_ = new QPlainTextEdit(this);
  log_view_->setReadOnly(true);
  log_view_->setMaximumBlockCount(2000);
  auto* log_dock = new QDockWidget("Run log", this);
  log_dock->setObjectName("log-dock");
  log_dock->setWidget(log_view_);
  addDockWidget(Qt::BottomDockWidgetArea, log_dock);
  connect(table_->selectionModel(), &QItemSelectionModel::selectionChanged, this, &MainWindow::showSelectedLog);
  buildMenusAndToolbar();

  comparison_ = new widgets::RunComparisonWidget(this);
  comparison_->setExecutionKeys(executionKeys());
  auto* comparison_dock = new QDockWidget("Comparison", this);
  comparison_dock->setObjectName("comparison-dock");
  comparison_dock->setWidget(scrollingPage(comparison_, comparison_dock));  // its notes and tables grow
  addDockWidget(Qt::RightDockWidgetArea, comparison_dock);
  tabifyDockWidget(log_dock, comparison_dock);
  queue_panel_ = new QueuePanel(runs_, document_, this);
  auto* queue_dock = new QDockWidget("Queue", this);
  queue_dock->setObjectName("queue-dock");
  queue_dock->setWidget(queue_panel_);
  addDockWidget(Qt::RightDockWidgetArea, queue_dock);
  tabifyDockWidget(comparison_dock, queue_dock);
  log_dock->raise();
  auto* comparison_timer = new QTimer(this);
  connect(comparison_timer, &QTimer::timeout, this, &MainWindow::refreshComparison);
  connect(comparison_timer, &QTimer::timeout, this, [this] {
    if (currentTabPage(tabs_) == frontier_) refreshFrontier();  // live while it is shown
  });
  comparison_timer->start(2000);

  latency_ = new EventLoopLatency(this);
  latency_->start();
  auto* latency_label = new QLabel(this);
  statusBar()->addPermanentWidget(latency_label);
  auto* latency_timer = new QTimer(this);
  connect(latency_timer, &QTimer::timeout, this, [this, latency_label]() {
    latency_label->setText(QString("event loop: max %1 ms, p99 %2 ms")
                               .arg(latency_->maxLatencyMs(), 0, 'f', 0)
                               .arg(latency_->p99LatencyMs(), 0, 'f', 0));
  });
  latency_timer->start(2000);
  project_label_ = new QLabel(this);
  statusBar()->addPermanentWidget(project_label_);
}

void MainWindow::buildMenusAndToolbar() {
  auto* file_menu = menuBar()->addMenu("&File");
  file_menu->addAction("&New project...", this, &MainWindow::onNewProject)->setShortcut(QKeySequence::New);
  auto* open = file_menu->addAction("&Open project...", this, &MainWindow::onOpenProject);
  open->setShortcut(QKeySequence::Open);
  recent_menu_ = file_menu->addMenu("Open &recent");
  file_menu->addSeparator();
  file_menu->addAction("Project &settings...", this, &MainWindow::onProjectSettings)
      ->setShortcut(QKeySequence("Ctrl+Shift+E"));
  file_menu->addAction("Prepared &data...", this, &MainWindow::onPreparedData);
  file_menu->addSeparator();
  // Ctrl+Q spelled out: QKeySequence::Quit is empty on some platforms (offscreen, some desktops).
  file_menu->addAction("&Quit", this, &QWidget::close)->setShortcut(QKeySequence("Ctrl+Q"));
  rebuildRecentMenu();

  auto* edit_menu = menuBar()->addMenu("&Edit");
  QAction* undo = document_->undoStack()->createUndoAction(this, "&Undo");
  undo->setShortcut(QKeySequence("Ctrl+Z"));
  edit_menu->addAction(undo);
  QAction* redo = document_->undoStack()->createRedoAction(this, "&Redo");
  redo->setShortcut(QKeySequence("Ctrl+Shift+Z"));
  edit_menu->addAction(redo);

  // The tabs by number, in their order (Ctrl+1 Curves ... Ctrl+5 Scaling).
  auto* view_menu = menuBar()->addMenu("&View");
  for (int i = 0; i < tabs_->count(); ++i) {
    view_menu->addAction(tabs_->tabText(i), this, [this, i] { tabs_->setCurrentIndex(i); })
        ->setShortcut(QKeySequence(QString("Ctrl+%1").arg(i + 1)));
  }

  auto* run_menu = menuBar()->addMenu("&Run");
  run_menu_ = run_menu;
  auto* toolbar = addToolBar("Runs");
  toolbar->setObjectName("runs-toolbar");
  auto addRunAction = [&](const QString& text, const QKeySequence& keys, void (MainWindow::*slot)()) {
    auto* action = run_menu->addAction(text, this, slot);
    action->setShortcut(keys);
    toolbar->addAction(action);
  };
  run_menu->addAction("&New run...", this, &MainWindow::onNewRun)->setShortcut(QKeySequence("Ctrl+Shift+N"));
  run_menu->addAction("&Duplicate run...", this, &MainWindow::onDuplicateRun)->setShortcut(QKeySequence("Ctrl+D"));
  run_menu->addAction("&Edit run...", this, &MainWindow::onEditRun)->setShortcut(QKeySequence("Ctrl+E"));
  run_menu->addAction("Re&move run", this, &MainWindow::onRemoveRun);
  run_menu->addAction("New s&weep...", this, &MainWindow::onNewSweep)->setShortcut(QKeySequence("Ctrl+Shift+W"));
  run_menu->addAction("&Compare configs...", this, &MainWindow::onCompareConfigs)
      ->setShortcut(QKeySequence("Ctrl+Shift+C"));
  run_menu->addSeparator();
  addRunAction("Train", QKeySequence("Ctrl+R"), &MainWindow::onTrainSelected);
  addRunAction("Resume", QKeySequence("Ctrl+Shift+R"), &MainWindow::onResumeSelected);
  addRunAction("Stop", QKeySequence("Ctrl+."), &MainWindow::onStopSelected);
  toolbar->addSeparator();
  run_menu->addAction("&Queue run", this, &MainWindow::onQueueSelected)->setShortcut(QKeySequence("Ctrl+Shift+Q"));
  run_menu->addAction("&Fork from checkpoint...", this, &MainWindow::onForkSelected);
  run_menu->addAction("&Archive run folder...", this, &MainWindow::onArchiveSelected);
  run_menu->addAction("Delete run &folder...", this, &MainWindow::onDeleteSelected);
  run_menu->addSeparator();
  run_menu->addAction("&Generate from run", this, &MainWindow::onGenerateSelected)->setShortcut(QKeySequence("Ctrl+G"));
  run_menu->addAction("&Inspect representations (inversion)", this, &MainWindow::onInspectSelected)
      ->setShortcut(QKeySequence("Ctrl+I"));
  run_menu->addAction("Re&trieve stories with run", this, &MainWindow::onRetrieveSelected)
      ->setShortcut(QKeySequence("Ctrl+Shift+F"));
  run_menu->addSeparator();
  run_menu->addAction("Reproduce the &paper...", this, &MainWindow::onReproducePaper)
      ->setShortcut(QKeySequence("Ctrl+Shift+P"));
  toolbar->addWidget(new QLabel(" target: ", this));
  target_selector_ = new LaunchTargetSelector(findCliExecutable(), this);
  connect(target_selector_, &LaunchTargetSelector::targetChanged, this,
          [this](const LaunchTargetSpec& spec) { control_->setTarget(spec); });
  toolbar->addWidget(target_selector_);
  run_menu->addAction("Add remote &host...", this, [this] {
    RemoteHostDialog dialog(this);
    if (dialog.exec() != QDialog::Accepted) return;
    saveRemoteHost(dialog.host());
    const LaunchTargetSpec target = LaunchTargetSpec::remote(dialog.host());
    target_selector_->addTarget(target);
    target_selector_->setCurrentTarget(target);
    statusBar()->showMessage("runs now start on " + target.displayName() + " (the target selector switches back)",
                             10000);
  });
  addHelpMenu(this);
}

QString MainWindow::runsDirectory() const { return document_->runsDirectory(); }
RunQueue* MainWindow::queue() const { return control_->queue(); }

QString MainWindow::openProject(const QString& project_file) {
  const QString previous_file = document_->isOpen() ? QFileInfo(document_->filePath()).absoluteFilePath() : QString();
  const QString error = document_->open(project_file);
  if (!error.isEmpty()) {
    // A dialog naming the file, the line and column and the fix; the project that
    // was open stays open. Window-modal and not blocking, so scripted starts and tests go on.
    auto* box = new QMessageBox(QMessageBox::Critical, "Cannot open project",
                                "Could not open " + QFileInfo(project_file).absoluteFilePath(), QMessageBox::Ok, this);
    box->setObjectName("project-error");
    box->setInformativeText(error + (document_->isOpen()
                                         ? "\n\nThe project that was open (" + document_->filePath() + ") stays open."
                                         : QString()));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
    statusBar()->showMessage("could not open " + QFileInfo(project_file).fileName() + " (see the message)", 15000);
    return error;
  }
  control_->stopMonitor();
  if (!previous_file.isEmpty() && previous_file != QFileInfo(document_->filePath()).absoluteFilePath()) {
    // Another project starts on this machine, not on the previous project's ranks or remote host
    // reopening the same project keeps the target.
    target_selector_->setCurrentTarget(LaunchTargetSpec::local());
    sweep_drafts_.clear();  // drafts name the other project's runs
    filter_edit_->clear();  // the last project's filter would hide this one's runs
  }
  panels_->forgetRuns();  // the previous project's curves and their colours
  restoreSeriesColours();
  generation_->setRunsDirectory(document_->runsDirectory());
  inversion_->setRunsDirectory(document_->runsDirectory());
  retrieval_->setRunsDirectory(document_->runsDirectory());
  retrieval_->setProjectCorpus(projectStoryCorpus(*document_));
  runs_->setProjectRuns(document_->runs());
  refreshProjectSettings();
  loadAnnotations();
  for (const QString& run : runs_->runNames()) panels_->removeRun(run);
  const QString file = document_->filePath();
  project_label_->setText(document_->name() + "  (" + file + ")");
  setWindowTitle("MixerLab - " + document_->name());
  AppSettings().rememberProject(file);
  rebuildRecentMenu();

  const QString queue_error = control_->openProject(file, runsDirectory());
  queue_panel_->setQueue(control_->queue());
  if (!queue_error.isEmpty()) statusBar()->showMessage(queue_error, 15000);
  if (runs_->rowCount() > 0) table_->selectRow(0);
  statusBar()->showMessage("opened " + file, 5000);
  return {};
}

void MainWindow::onProjectEdited() {
  runs_->syncProjectRuns(document_->runs());
  refreshProjectSettings();
  project_label_->setText(document_->name() + "  (" + document_->filePath() + ")");
  setWindowTitle("MixerLab - " + document_->name());
}

QString MainWindow::selectedRun() const {
  const auto rows = table_->selectionModel()->selectedRows();
  return rows.isEmpty() ? QString() : runs_->runAt(table_filter_->mapToSource(rows.first()).row());
}

QString MainWindow::runState(const QString& run) const {
  if (runs_->launchFailed(run)) return "failed to start";
  const auto state = runs_->state(run);
  return state ? QString::fromStdString(runStateName(*state)) : QString();
}

void MainWindow::onRunUpdated(const RunSnapshot& s) {
  runs_->applySnapshot(s);
  if (s.run == selectedRun()) showSelectedLog();
}

void MainWindow::showSelectedLog() {
  const QString run = selectedRun();
  if (run.isEmpty() || runsDirectory().isEmpty()) return;
  QFile file(QString::fromStdString(RunPaths{(runsDirectory() + "/" + run).toStdString()}.log().string()));
  if (!file.open(QIODevice::ReadOnly)) {
    log_view_->setPlainText("(no log yet: the run has not started)");
    return;
  }
  constexpr qint64 kTailBytes = 32 * 1024;
  if (file.size() > kTailBytes) file.seek(file.size() - kTailBytes);
  log_view_->setPlainText(QString::fromUtf8(file.readAll()));
  log_view_->moveCursor(QTextCursor::End);
}

QString MainWindow::launch(const QString& run, bool resume) {
  if (!document_->isOpen()) return "open a project first";
  const QString project_file = document_->filePath();
  // A run folder the project does not name (a fork) resumes as its project run, under its own id.
  QString project_run = run, run_id;
  if (!document_->runNames().contains(run)) {
    if (const auto info = tryReadRunInfo((runsDirectory() + "/" + run).toStdString())) {
      project_run = QString::fromStdString(info->run.name);
      run_id = run;
    }
  }
  const QString error =
      control_->start(run, runsDirectory() + "/" + run, trainArguments(project_file, project_run, resume, run_id),
                      QFileInfo(project_file).absolutePath());
  if (error.isEmpty()) statusBar()->showMessage("starting " + run + " on " + control_->targetName() + "...", 8000);
  return error;
}

void MainWindow::onLaunchFailed(const QString& run, const QString& error) {
  runs_->setLaunchError(run, error);
  statusBar()->showMessage(run + " did not start: " + QString(error).replace('\n', ' '), 20000);
}

QString MainWindow::stop(const QString& run) {
  const QString error = requestStop(runsDirectory() + "/" + run);
  statusBar()->showMessage(error.isEmpty() ? "asked " + run + " to stop (it checkpoints first)" : error, 8000);
  return error;
}

void MainWindow::rebuildRecentMenu() {
  recent_menu_->clear();
  const QStringList recent = AppSettings().recentProjects();
  for (const QString& file : recent) {
    recent_menu_->addAction(file, this, [this, file]() { openProject(file); });
  }
  recent_menu_->setEnabled(!recent.isEmpty());
}

QString MainWindow::editRunInDialog(const QJsonObject& initial, const QString& replace_name) {
  if (!document_->isOpen()) return "open a project first";
  RunSetupDialog dialog(ProjectSource{document_->json(), document_->filePath(), {}}, initial, this);
  QStringList reserved = runs_->runNames();  // the project's runs and any other run directory (forks)
  reserved.removeAll(replace_name);
  dialog.setReservedNames(reserved);
  const MachineSpeed speed = measuredMachineSpeed(*runs_);
  dialog.setMachineSpeed(speed.training_flops_per_s, speed.runs_measured);
  if (dialog.exec() != QDialog::Accepted) return "cancelled";
  if (dialog.sweepRequested()) {  // the form's run is the base of a sweep, not a run of its own
    return sweepFrom(dialog.run(), widgets::flattenConfig(dialog.fullRun()).keys());
  }
  const QString error =
      replace_name.isEmpty() ? document_->addRun(dialog.run()) : document_->replaceRun(replace_name, dialog.run());
  if (!error.isEmpty()) statusBar()->showMessage(error, 10000);
  return error;
}

void MainWindow::onNewRun() {
  QJsonObject run = document_->run(selectedRun());
  run["name"] = "new-run";
  editRunInDialog(run, {});
}

QString MainWindow::notAProjectRun(const QString& run) const {
  if (document_->runNames().contains(run)) return {};
  const auto info = tryReadRunInfo((runsDirectory() + "/" + run).toStdString());
  const QString origin = info ? " (a fork of " + QString::fromStdString(info->run.name) + ")" : QString();
  return run + " is a run folder, not a run of the project" + origin +
         ": edit the project run it came from, or Duplicate run to make a project run from its settings";
}

QJsonObject MainWindow::settingsToCopy(const QString& run) const {
  if (document_->runNames().contains(run)) return document_->run(run);
  // A fork: its settings as it ran (run.json), only what differs from its project run as that
  // resolves now: the copy then inherits the project's defaults like any run,
  // instead of freezing every value.
  QJsonObject settings = QJsonDocument::fromJson(runs_->runConfigJson(run)).object();
  const QJsonObject parent = document_->resolvedRun(settings.value("name").toString());
  return parent.isEmpty() ? settings : settingsThatDiffer(settings, parent);
}

void MainWindow::onDuplicateRun() {
  if (selectedRun().isEmpty()) return;
  QJsonObject run = settingsToCopy(selectedRun());
  if (run.isEmpty()) {
    statusBar()->showMessage(selectedRun() + " has no recorded settings to duplicate", 10000);
    return;
  }
  run["name"] = selectedRun() + "-copy";
  editRunInDialog(run, {});
}

void MainWindow::onEditRun() {
  if (selectedRun().isEmpty()) return;
  if (const QString why = notAProjectRun(selectedRun()); !why.isEmpty()) {
    statusBar()->showMessage(why, 15000);  // the form would open empty: the project has no such entry
    return;
  }
  editRunInDialog(document_->run(selectedRun()), selectedRun());
}

void MainWindow::onRemoveRun() {
  if (selectedRun().isEmpty()) return;
  if (const QString why = notAProjectRun(selectedRun()); !why.isEmpty()) {
    statusBar()->showMessage(why, 15000);
    return;
  }
  const QString run = selectedRun();
  const QString error = document_->removeRun(run);
  statusBar()->showMessage(
      error.isEmpty() ? "removed " + run + " from the project (Edit > Undo brings it back)" : error, 10000);
}

QStringList MainWindow::executionKeys() {
  QStringList keys;
  for (const std::string& key : executionSettingKeys()) keys << QString::fromStdString(key);
  return keys;
}

void MainWindow::onCompareConfigs() {
  const QStringList names = runs_->runNames();
  if (!document_->isOpen() || names.size() < 2) return;
  const QString left = selectedRun().isEmpty() ? names.value(0) : selectedRun();
  bool ok = false;
  const QString right =
      QInputDialog::getItem(this, "Compare configs", "Compare " + left + " with:", names, 0, false, &ok);
  if (!ok) return;
  QDialog dialog(this);
  dialog.setWindowTitle("Config differences: " + left + " vs " + right);
  auto* view = new widgets::ConfigDiffView(&dialog);
  view->setExecutionKeys(executionKeys());
  view->setConfigs(document_->resolvedRun(left), document_->resolvedRun(right), left, right);
  auto* layout = new QVBoxLayout(&dialog);
  layout->addWidget(view);
  dialog.resize(720, 520);
  dialog.exec();
}

void MainWindow::onQueueSelected() {
  RunQueue* queue = control_->queue();
  if (!queue || selectedRun().isEmpty()) return;
  const bool resume = RunPaths{(runsDirectory() + "/" + selectedRun()).toStdString()}.hasRunInfo();
  queue->enqueue(selectedRun(), resume);
  statusBar()->showMessage("queued " + selectedRun() + " (" + QString::number(queue->pending().size()) + " waiting)",
                           5000);
}

void MainWindow::refreshComparison() {
  if (!comparison_) return;  // a grouping restored before the comparison dock exists
  QVector<widgets::RunCurve> curves = runs_->overlaidCurves();
  curves.erase(
      std::remove_if(curves.begin(), curves.end(), [this](const widgets::RunCurve& c) { return !plotShows(c.run); }),
      curves.end());
  comparison_->setRuns(curves);
  comparison_->setGroups(panels_->runGroups());
}

void MainWindow::refreshFrontier() {
  frontier_->setGroups(
      computeFrontierGroups(*runs_, frontier_->grouping(), [this](const QString& run) { return plotShows(run); }));
}

void MainWindow::onOverlayToggled(const QString& run, bool) {
  showOrHideInPlots(run);
  refreshComparison();
}

double MainWindow::eventLoopMaxLatencyMs() const { return latency_ ? latency_->maxLatencyMs() : 0; }
double MainWindow::eventLoopP99LatencyMs() const { return latency_ ? latency_->p99LatencyMs() : 0; }

void MainWindow::onOpenProject() {
  const QString file = QFileDialog::getOpenFileName(this, "Open project", QString(), "Project files (*.json)");
  if (!file.isEmpty()) openProject(file);
}

void MainWindow::onPreparedData() {
  if (!document_ || document_->filePath().isEmpty()) return;
  DataPreparationDialog dialog(document_->filePath(), findCliExecutable(), this);
  dialog.exec();
}

void MainWindow::onTrainSelected() {
  if (!selectedRun().isEmpty()) launch(selectedRun(), /*resume=*/false);
}

void MainWindow::onResumeSelected() {
  if (!selectedRun().isEmpty()) launch(selectedRun(), /*resume=*/true);
}

void MainWindow::onStopSelected() {
  if (!selectedRun().isEmpty()) stop(selectedRun());
}

void MainWindow::onRunContextMenu(const QPoint& pos) {
  const QModelIndex index = table_->indexAt(pos);
  if (!index.isValid()) return;
  table_->selectRow(index.row());
  QMenu menu(this);
  menu.addActions(run_menu_->actions());  // the Run menu, for the row clicked (Generate and Inspect included)
  menu.addSeparator();
  menu.addAction("Edit tags…", this, [this, index] { table_->edit(index.siblingAtColumn(RunListModel::Tags)); });
  menu.addAction("Edit notes…", this, [this, index] { table_->edit(index.siblingAtColumn(RunListModel::Notes)); });
  menu.exec(table_->viewport()->mapToGlobal(pos));
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (keeps_window_layout_) {
    AppSettings settings;
    settings.setWindowGeometry(saveGeometry());
    settings.setWindowState(saveState());
  }
  control_->stopMonitor();  // runs keep going: they are separate processes
  generation_->stop();      // generation runs in this process: cancel it and join its threads
  inversion_->stop();       // so does inversion
  retrieval_->stop();       // and retrieval
  event->accept();
}

}  // namespace mixerlab::gui

namespace mixerlab::gui {

void MainWindow::onReproducePaper() {
  if (!reproduce_dialog_) {
    reproduce_dialog_ =
        new ReproduceDialog(findCliExecutable(), QDir::current().absoluteFilePath("reproduce-tiny"), this);
    connect(reproduce_dialog_, &ReproduceDialog::openProjectRequested, this,
            [this](const QString& project_file) { openProject(project_file); });
  }
  reproduce_dialog_->show();
  reproduce_dialog_->raise();
}

}  // namespace mixerlab::gui
