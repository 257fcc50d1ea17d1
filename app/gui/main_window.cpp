// The MixerLab main window (see main_window.h).
#include "app/gui/main_window.h"

#include <QAction>
#include <QCloseEvent>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QInputDialog>
#include <QComboBox>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QTimer>
#include <algorithm>
#include <limits>
#include <QVBoxLayout>
#include <QMenu>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QSettings>
#include <QStatusBar>
#include <QTableWidget>
#include <QThread>
#include <QToolBar>

#include "app/gui/project_file_editor.h"
#include "app/gui/run_config_schema.h"
#include "app/gui/event_loop_latency.h"
#include "app/gui/run_launcher.h"
#include "app/gui/run_queue.h"
#include "widgets/run_comparison.h"
#include "app/gui/run_setup_dialog.h"
#include "widgets/config_diff_view.h"
#include "app/gui/run_monitor.h"
#include "core/config/project_config.h"
#include "core/runs/run_directory.h"
#include "widgets/loss_plot_widget.h"

namespace mixerlab::gui {

namespace {
enum Column { kRun, kArch, kState, kStep, kTokens, kBestEval, kTokensPerS, kElapsed, kDevice, kColumns };
constexpr int kMaxRecentProjects = 8;

// "cpu (2 threads, BLAS /usr/lib/...)" -> "cpu (2 threads)": the BLAS path is in run.json.
QString shortDevice(const QString& device) {
  const int blas = device.indexOf(", BLAS");
  return blas < 0 ? device : device.left(blas) + ")";
}

QString elapsedText(double seconds) {
  const int s = static_cast<int>(seconds);
  return QString("%1:%2").arg(s / 60).arg(s % 60, 2, 10, QChar('0'));
}
}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent), target_(new LocalLaunchTarget(findCliExecutable())) {
  qRegisterMetaType<RunSnapshot>("mixerlab::gui::RunSnapshot");
  buildUi();
  QSettings settings("MixerLab", "mixerlab-gui");
  restoreGeometry(settings.value("window/geometry").toByteArray());
  restoreState(settings.value("window/state").toByteArray());
}

MainWindow::~MainWindow() { stopMonitor(); }

void MainWindow::buildUi() {
  setWindowTitle("MixerLab");
  resize(1200, 760);
  plot_ = new widgets::LossPlotWidget(this);
  setCentralWidget(plot_);

  table_ = new QTableWidget(0, kColumns, this);
  table_->setHorizontalHeaderLabels(
      {"run", "architecture", "status", "step", "tokens", "best eval", "tokens/s", "elapsed", "device"});
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->verticalHeader()->setVisible(false);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  auto* runs_dock = new QDockWidget("Runs", this);
  runs_dock->setObjectName("runs-dock");
  runs_dock->setWidget(table_);
  addDockWidget(Qt::BottomDockWidgetArea, runs_dock);

  log_view_ = new QPlainTextEdit(this);
  log_view_->setReadOnly(true);
  log_view_->setMaximumBlockCount(2000);
  auto* log_dock = new QDockWidget("Run log", this);
  log_dock->setObjectName("log-dock");
  log_dock->setWidget(log_view_);
  addDockWidget(Qt::BottomDockWidgetArea, log_dock);
  connect(table_, &QTableWidget::itemSelectionChanged, this, &MainWindow::showSelectedLog);
  connect(table_, &QTableWidget::itemChanged, this, &MainWindow::onOverlayToggled);

  auto* file_menu = menuBar()->addMenu("&File");
  file_menu->addAction("&New project...", this, &MainWindow::onNewProject)->setShortcut(QKeySequence::New);
  auto* open = file_menu->addAction("&Open project...", this, &MainWindow::onOpenProject);
  open->setShortcut(QKeySequence::Open);
  recent_menu_ = file_menu->addMenu("Open &recent");
  file_menu->addSeparator();
  file_menu->addAction("&Quit", this, &QWidget::close)->setShortcut(QKeySequence::Quit);
  rebuildRecentMenu();

  auto* run_menu = menuBar()->addMenu("&Run");
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
  run_menu->addAction("&Compare configs...", this, &MainWindow::onCompareConfigs);
  run_menu->addSeparator();
  addRunAction("Train", QKeySequence("Ctrl+R"), &MainWindow::onTrainSelected);
  addRunAction("Resume", QKeySequence("Ctrl+Shift+R"), &MainWindow::onResumeSelected);
  addRunAction("Stop", QKeySequence("Ctrl+."), &MainWindow::onStopSelected);
  toolbar->addSeparator();
  run_menu->addAction("&Queue run", this, &MainWindow::onQueueSelected)->setShortcut(QKeySequence("Ctrl+Q, Ctrl+R"));
  run_menu->addAction("&Fork from checkpoint...", this, &MainWindow::onForkSelected);
  toolbar->addWidget(new QLabel(" target: ", this));
  target_box_ = new QComboBox(this);
  target_box_->addItems(launchTargetNames());  // "local" now; multi-GPU node and SSH hosts later
  target_box_->setToolTip("Where runs are launched");
  connect(target_box_, &QComboBox::currentTextChanged, this, [this](const QString& name) {
    if (auto target = makeLaunchTarget(name)) target_ = std::move(target);
  });
  toolbar->addWidget(target_box_);

  comparison_ = new widgets::RunComparisonWidget(this);
  auto* comparison_dock = new QDockWidget("Comparison", this);
  comparison_dock->setObjectName("comparison-dock");
  comparison_dock->setWidget(comparison_);
  addDockWidget(Qt::RightDockWidgetArea, comparison_dock);
  tabifyDockWidget(log_dock, comparison_dock);
  log_dock->raise();
  auto* comparison_timer = new QTimer(this);
  connect(comparison_timer, &QTimer::timeout, this, &MainWindow::refreshComparison);
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

void MainWindow::stopMonitor() {
  if (!monitor_thread_) return;
  monitor_thread_->quit();
  monitor_thread_->wait();
  delete monitor_thread_;
  monitor_thread_ = nullptr;
  monitor_ = nullptr;  // deleted with the thread's finished() -> deleteLater
}

QString MainWindow::openProject(const QString& project_file) {
  ProjectConfig project;
  try {
    project = loadProject(project_file.toStdString());
  } catch (const std::exception& e) {
    const QString message = QString::fromStdString(e.what());
    statusBar()->showMessage(message);
    return message;
  }
  stopMonitor();
  project_file_ = QFileInfo(project_file).absoluteFilePath();
  runs_dir_ = QString::fromStdString(project.defaultRunsDirectory().string());
  table_->setRowCount(0);
  series_.clear();
  states_.clear();
  for (const auto& run : project.runs) {
    rowFor(QString::fromStdString(run.name), QString::fromStdString(run.model.arch));
    plot_->removeRun(QString::fromStdString(run.name));
  }
  project_label_->setText(QString::fromStdString(project.name) + "  (" + project_file_ + ")");
  setWindowTitle("MixerLab - " + QString::fromStdString(project.name));
  rememberRecentProject(project_file_);

  delete queue_;
  queue_ = new RunQueue(makeLaunchTarget(target_box_->currentText()), project_file_, runs_dir_, this);
  connect(queue_, &RunQueue::started, this, [this](const QString& run) { statusBar()->showMessage("queue started " + run, 5000); });
  connect(queue_, &RunQueue::launchFailed, this,
          [this](const QString& run, const QString& error) { statusBar()->showMessage(run + ": " + error, 10000); });
  run_configs_.clear();

  monitor_thread_ = new QThread;
  monitor_ = new RunMonitor(runs_dir_);
  monitor_->moveToThread(monitor_thread_);
  connect(monitor_thread_, &QThread::started, monitor_, &RunMonitor::start);
  connect(monitor_thread_, &QThread::finished, monitor_, &QObject::deleteLater);
  connect(monitor_, &RunMonitor::runUpdated, this, &MainWindow::onRunUpdated, Qt::QueuedConnection);
  monitor_thread_->start();
  if (table_->rowCount() > 0) table_->selectRow(0);
  statusBar()->showMessage("opened " + project_file_, 5000);
  return {};
}

int MainWindow::rowFor(const QString& run, const QString& arch) {
  for (int r = 0; r < table_->rowCount(); ++r) {
    if (table_->item(r, kRun)->text() == run) return r;
  }
  const int row = table_->rowCount();
  table_->insertRow(row);
  for (int c = 0; c < kColumns; ++c) table_->setItem(row, c, new QTableWidgetItem(c == kState ? "not started" : ""));
  table_->item(row, kRun)->setText(run);
  table_->item(row, kRun)->setFlags(table_->item(row, kRun)->flags() | Qt::ItemIsUserCheckable);
  table_->item(row, kRun)->setCheckState(Qt::Checked);  // checked runs are overlaid and compared
  table_->item(row, kRun)->setToolTip("untick to hide this run from the plot and the comparison");
  table_->item(row, kArch)->setText(arch);
  return row;
}

QString MainWindow::selectedRun() const {
  const auto rows = table_->selectionModel()->selectedRows();
  return rows.isEmpty() ? QString() : table_->item(rows.first().row(), kRun)->text();
}

QString MainWindow::runState(const QString& run) const { return states_.value(run); }

void MainWindow::onRunUpdated(const RunSnapshot& s) {
  const int row = rowFor(s.run);
  states_[s.run] = s.state;
  table_->item(row, kState)->setText(s.reason.isEmpty() ? s.state : s.state + ": " + s.reason);
  table_->item(row, kState)->setToolTip(s.reason);
  table_->item(row, kStep)->setText(QString::number(s.step));
  table_->item(row, kTokens)->setText(QString::number(s.tokens));
  table_->item(row, kBestEval)->setText(s.best_eval_loss >= 0 ? QString::number(s.best_eval_loss, 'f', 4) : "");
  table_->item(row, kTokensPerS)->setText(s.tokens_per_s > 0 ? QString::number(s.tokens_per_s, 'f', 0) : "");
  table_->item(row, kElapsed)->setText(elapsedText(s.wall_s));
  if (!s.arch.isEmpty()) table_->item(row, kArch)->setText(s.arch);
  table_->item(row, kDevice)->setText(shortDevice(s.device));
  table_->item(row, kDevice)->setToolTip(s.device);
  if (queue_) queue_->onRunStateChanged(s.run, s.state);
  if (!s.run_config_json.isEmpty()) run_configs_[s.run] = s.run_config_json;
  auto& series = series_[s.run];
  series.run = s.run;
  if (s.reset) series.clear();
  for (const auto& p : s.new_train) series.appendTrain(p);
  for (const auto& p : s.new_eval) series.appendEval(p);
  if ((!s.new_train.isEmpty() || !s.new_eval.isEmpty() || s.reset) && isOverlaid(s.run)) plot_->setSeries(series);
  if (s.run == selectedRun()) showSelectedLog();
}

void MainWindow::showSelectedLog() {
  const QString run = selectedRun();
  if (run.isEmpty() || runs_dir_.isEmpty()) return;
  QFile file(QString::fromStdString(RunPaths{(runs_dir_ + "/" + run).toStdString()}.log().string()));
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
  if (project_file_.isEmpty()) return "open a project first";
  const QString error =
      target_->start(trainArguments(project_file_, run, resume), QFileInfo(project_file_).absolutePath());
  statusBar()->showMessage(error.isEmpty() ? "started " + run + " on " + target_->name() : error, 8000);
  return error;
}

QString MainWindow::stop(const QString& run) {
  const QString error = requestStop(runs_dir_ + "/" + run);
  statusBar()->showMessage(error.isEmpty() ? "asked " + run + " to stop (it checkpoints first)" : error, 8000);
  return error;
}

void MainWindow::rememberRecentProject(const QString& file) {
  QSettings settings("MixerLab", "mixerlab-gui");
  settings.setValue("recent/project", file);
  QStringList recent = settings.value("recent/projects").toStringList();
  recent.removeAll(file);
  recent.prepend(file);
  while (recent.size() > kMaxRecentProjects) recent.removeLast();
  settings.setValue("recent/projects", recent);
  rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu() {
  recent_menu_->clear();
  const QStringList recent = QSettings("MixerLab", "mixerlab-gui").value("recent/projects").toStringList();
  for (const QString& file : recent) {
    recent_menu_->addAction(file, this, [this, file]() { openProject(file); });
  }
  recent_menu_->setEnabled(!recent.isEmpty());
}

void MainWindow::onNewProject() {
  const QString corpus = QFileDialog::getOpenFileName(this, "Choose the training corpus", QString(),
                                                      "Text corpora (*.txt *.jsonl *.json);;All files (*)");
  if (corpus.isEmpty()) return;
  const QString folder = QFileDialog::getExistingDirectory(this, "Choose an empty folder for the project");
  if (folder.isEmpty()) return;
  QString file;
  const QString error = createProject(folder, corpus, &file);
  if (!error.isEmpty()) {
    statusBar()->showMessage(error, 10000);
    return;
  }
  openProject(file);
}

QString MainWindow::editRunInDialog(const QJsonObject& initial, const QString& replace_name) {
  if (project_file_.isEmpty()) return "open a project first";
  RunSetupDialog dialog(project_file_, initial, this);
  QStringList reserved;
  for (int r = 0; r < table_->rowCount(); ++r) {
    const QString name = table_->item(r, kRun)->text();
    if (name != replace_name) reserved << name;
  }
  dialog.setReservedNames(reserved);
  if (dialog.exec() != QDialog::Accepted) return "cancelled";
  const QString error = upsertProjectRun(project_file_, dialog.run(), replace_name);
  if (!error.isEmpty()) {
    statusBar()->showMessage(error, 10000);
    return error;
  }
  return openProject(project_file_);  // reload the edited project
}

void MainWindow::onNewRun() {
  QJsonObject run = projectRun(project_file_, selectedRun());
  run["name"] = "new-run";
  editRunInDialog(run, {});
}

void MainWindow::onDuplicateRun() {
  if (selectedRun().isEmpty()) return;
  QJsonObject run = projectRun(project_file_, selectedRun());
  run["name"] = selectedRun() + "-copy";
  editRunInDialog(run, {});
}

void MainWindow::onEditRun() {
  if (selectedRun().isEmpty()) return;
  editRunInDialog(projectRun(project_file_, selectedRun()), selectedRun());
}

void MainWindow::onCompareConfigs() {
  if (project_file_.isEmpty() || table_->rowCount() < 2) return;
  QStringList names;
  for (int r = 0; r < table_->rowCount(); ++r) names << table_->item(r, kRun)->text();
  const QString left = selectedRun().isEmpty() ? names.value(0) : selectedRun();
  bool ok = false;
  const QString right = QInputDialog::getItem(this, "Compare configs", "Compare " + left + " with:", names, 0, false, &ok);
  if (!ok) return;
  QDialog dialog(this);
  dialog.setWindowTitle("Config differences: " + left + " vs " + right);
  auto* view = new widgets::ConfigDiffView(&dialog);
  view->setConfigs(resolvedRun(projectRun(project_file_, left), project_file_),
                   resolvedRun(projectRun(project_file_, right), project_file_), left, right);
  auto* layout = new QVBoxLayout(&dialog);
  layout->addWidget(view);
  dialog.resize(720, 520);
  dialog.exec();
}

void MainWindow::onQueueSelected() {
  if (!queue_ || selectedRun().isEmpty()) return;
  const bool resume = RunPaths{(runs_dir_ + "/" + selectedRun()).toStdString()}.hasRunInfo();
  queue_->enqueue(selectedRun(), resume);
  statusBar()->showMessage("queued " + selectedRun() + " (" + QString::number(queue_->pending().size()) + " waiting)", 5000);
}

void MainWindow::onForkSelected() {
  if (selectedRun().isEmpty() || project_file_.isEmpty()) return;
  const QString checkpoint = QFileDialog::getExistingDirectory(this, "Fork from which checkpoint?",
                                                               runs_dir_ + "/" + selectedRun() + "/checkpoints");
  if (checkpoint.isEmpty()) return;
  bool ok = false;
  const QString run_id = QInputDialog::getText(this, "Fork run", "Name of the new run directory:", QLineEdit::Normal,
                                               selectedRun() + "-fork", &ok);
  if (!ok || run_id.isEmpty()) return;
  const QString error = target_->start(trainArguments(project_file_, selectedRun(), false, run_id, checkpoint),
                                       QFileInfo(project_file_).absolutePath());
  statusBar()->showMessage(error.isEmpty() ? "forked " + run_id + " from " + checkpoint : error, 8000);
}

void MainWindow::refreshComparison() {
  QVector<widgets::RunCurve> curves;
  for (auto it = series_.cbegin(); it != series_.cend(); ++it) {
    if (!isOverlaid(it.key())) continue;
    widgets::RunCurve curve;
    curve.run = it.key();
    curve.config = QJsonDocument::fromJson(run_configs_.value(it.key())).object();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    for (const auto& p : it->train) curve.points.push_back({p.step, p.tokens, p.wall_s, p.flops, p.loss, nan});
    for (const auto& p : it->eval) curve.points.push_back({p.step, p.tokens, p.wall_s, p.flops, nan, p.loss});
    std::sort(curve.points.begin(), curve.points.end(),
              [](const widgets::CurvePoint& a, const widgets::CurvePoint& b) { return a.step < b.step; });
    if (!curve.points.isEmpty()) curves.push_back(curve);
  }
  comparison_->setRuns(curves);
}

bool MainWindow::isOverlaid(const QString& run) const {
  for (int r = 0; r < table_->rowCount(); ++r) {
    if (table_->item(r, kRun)->text() == run) return table_->item(r, kRun)->checkState() == Qt::Checked;
  }
  return true;
}

void MainWindow::onOverlayToggled(QTableWidgetItem* item) {
  if (item->column() != kRun) return;
  const QString run = item->text();
  if (item->checkState() == Qt::Checked && series_.contains(run)) {
    plot_->setSeries(series_[run]);
  } else if (item->checkState() != Qt::Checked) {
    plot_->removeRun(run);
  }
  refreshComparison();
}

double MainWindow::eventLoopMaxLatencyMs() const { return latency_ ? latency_->maxLatencyMs() : 0; }
double MainWindow::eventLoopP99LatencyMs() const { return latency_ ? latency_->p99LatencyMs() : 0; }

void MainWindow::onOpenProject() {
  const QString file = QFileDialog::getOpenFileName(this, "Open project", QString(), "Project files (*.json)");
  if (!file.isEmpty()) openProject(file);
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

void MainWindow::closeEvent(QCloseEvent* event) {
  QSettings settings("MixerLab", "mixerlab-gui");
  settings.setValue("window/geometry", saveGeometry());
  settings.setValue("window/state", saveState());
  stopMonitor();  // runs keep going: they are separate processes
  event->accept();
}

}  // namespace mixerlab::gui
