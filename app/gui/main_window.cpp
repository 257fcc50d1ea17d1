// The MixerLab main window (see main_window.h).
#include "app/gui/main_window.h"

#include <QAction>
#include <QCloseEvent>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSettings>
#include <QStatusBar>
#include <QTableWidget>
#include <QThread>
#include <QToolBar>

#include "app/gui/run_launcher.h"
#include "app/gui/run_monitor.h"
#include "core/config/project_config.h"
#include "widgets/loss_plot_widget.h"

namespace mixerlab::gui {

namespace {
enum Column { kRun, kArch, kState, kStep, kTokens, kBestEval, kTokensPerS, kElapsed, kColumns };

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
  table_->setHorizontalHeaderLabels({"run", "architecture", "status", "step", "tokens", "best eval", "tokens/s", "elapsed"});
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

  auto* toolbar = addToolBar("Runs");
  toolbar->setObjectName("runs-toolbar");
  auto* open = toolbar->addAction("Open project...", this, &MainWindow::onOpenProject);
  open->setShortcut(QKeySequence::Open);
  auto* train = toolbar->addAction("Train", this, &MainWindow::onTrainSelected);
  train->setShortcut(QKeySequence("Ctrl+R"));
  toolbar->addAction("Resume", this, &MainWindow::onResumeSelected)->setShortcut(QKeySequence("Ctrl+Shift+R"));
  toolbar->addAction("Stop", this, &MainWindow::onStopSelected)->setShortcut(QKeySequence("Ctrl+."));
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
  QSettings("MixerLab", "mixerlab-gui").setValue("recent/project", project_file_);

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
  auto& series = series_[s.run];
  series.run = s.run;
  if (s.reset) series.clear();
  for (const auto& p : s.new_train) series.appendTrain(p);
  for (const auto& p : s.new_eval) series.appendEval(p);
  if (!s.new_train.isEmpty() || !s.new_eval.isEmpty() || s.reset) plot_->setSeries(series);
  if (s.run == selectedRun()) showSelectedLog();
}

void MainWindow::showSelectedLog() {
  const QString run = selectedRun();
  if (run.isEmpty() || runs_dir_.isEmpty()) return;
  QFile file(runs_dir_ + "/" + run + "/log.txt");
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
