// The main window's runs table: the filter line, sorting, hyperparameter columns picked from the
// header's context menu, tags and notes (stored in run_notes.json), and archive or delete of a
// run's folder with confirmation, and sweeps (Run > New sweep) that add and queue many runs at once.
// The table shows RunListModel through a RunTableFilter.
#include <QDir>
#include <QDockWidget>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QStatusBar>
#include <QTableView>
#include <QTimer>
#include <QUndoStack>
#include <QVBoxLayout>

#include "app/gui/common/app_settings.h"
#include "app/gui/common/scrolling_tabs.h"
#include "app/gui/launch/run_queue.h"
#include "app/gui/project/project_document.h"
#include "app/gui/runs/run_annotations.h"
#include "app/gui/runs/run_archive.h"
#include "app/gui/runs/run_list_model.h"
#include "app/gui/runs/run_table_filter.h"
#include "app/gui/shell/main_window.h"
#include "widgets/forms/sweep_dialog.h"
#include "widgets/plots/plot_panels.h"
#include "widgets/tables/frozen_column_table_view.h"
#include "widgets/tables/run_comparison.h"

namespace mixerlab::gui {

void MainWindow::buildRunsDock() {
  table_filter_ = new RunTableFilter(runs_, this);
  runs_->setHyperparameterColumns(AppSettings().runTableColumns());
  table_ = new widgets::FrozenColumnTableView(this);  // the run names stay while the columns scroll
  table_->setTabKeyNavigation(false);                 // Tab moves on to the next widget; arrows move in the table
  table_->setModel(table_filter_);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed);  // tags, notes
  table_->verticalHeader()->setVisible(false);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  // Long texts get a fixed width (the full text is in the tooltip), so hyperparameter columns stay in view.
  for (const int column : {int(RunListModel::Architecture), int(RunListModel::Notes)}) {
    table_->horizontalHeader()->setSectionResizeMode(column, QHeaderView::Interactive);
    table_->horizontalHeader()->resizeSection(column, 170);
  }
  table_->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);  // the project's order until a click
  table_->setSortingEnabled(true);
  table_->horizontalHeader()->setSortIndicatorClearable(true);
  table_->horizontalHeader()->setContextMenuPolicy(Qt::CustomContextMenu);
  table_->horizontalHeader()->setToolTip("click to sort; right-click to choose hyperparameter columns");
  connect(table_->horizontalHeader(), &QWidget::customContextMenuRequested, this, &MainWindow::onRunHeaderMenu);
  table_->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(table_, &QWidget::customContextMenuRequested, this, &MainWindow::onRunContextMenu);
  connect(runs_, &RunListModel::annotationEdited, this, &MainWindow::saveAnnotations);

  filter_edit_ = new QLineEdit(this);
  filter_edit_->setObjectName("run-filter");
  filter_edit_->setClearButtonEnabled(true);
  filter_edit_->setPlaceholderText("filter runs: text, d_model=256, tag:baseline");
  connect(filter_edit_, &QLineEdit::textChanged, table_filter_, &RunTableFilter::setFilterText);
  connect(filter_edit_, &QLineEdit::textChanged, this, [this] {  // the plots follow the table
    for (const QString& run : runs_->runNames()) showOrHideInPlots(run);
    refreshComparison();
    if (currentTabPage(tabs_) == frontier_) refreshFrontier();
  });

  auto* holder = new QWidget(this);
  auto* layout = new QVBoxLayout(holder);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  layout->addWidget(filter_edit_);
  layout->addWidget(table_, 1);
  auto* runs_dock = new QDockWidget("Runs", this);
  runs_dock->setObjectName("runs-dock");
  runs_dock->setWidget(holder);
  addDockWidget(Qt::BottomDockWidgetArea, runs_dock);
}

void MainWindow::onRunHeaderMenu(const QPoint& pos) {
  QMenu menu(this);
  menu.addSection("Hyperparameter columns");
  const QStringList chosen = runs_->hyperparameterColumns();
  QStringList keys = runs_->availableHyperparameters();
  for (const QString& key : chosen) {
    if (!keys.contains(key)) keys << key;
  }
  for (const QString& key : keys) {
    QAction* action = menu.addAction(key);
    action->setCheckable(true);
    action->setChecked(chosen.contains(key));
    connect(action, &QAction::toggled, this, [this, key](bool on) {
      QStringList columns = runs_->hyperparameterColumns();
      if (on && !columns.contains(key)) columns << key;
      if (!on) columns.removeAll(key);
      runs_->setHyperparameterColumns(columns);
      AppSettings().setRunTableColumns(columns);
    });
  }
  menu.exec(table_->horizontalHeader()->mapToGlobal(pos));
}

void MainWindow::refreshProjectSettings() {
  for (const QString& run : document_->runNames()) {
    QVariantMap flat;
    const auto values = widgets::flattenConfig(document_->resolvedRun(run));
    for (auto it = values.cbegin(); it != values.cend(); ++it) flat[it.key()] = it.value().toVariant();
    runs_->setProjectSettings(run, flat);
  }
  grouped_runs_.clear();  // the settings changed: list the ones that differ again
  panels_->setGroupingFields(varyingSettings());
}

void MainWindow::restoreSeriesColours() {
  const std::shared_ptr<widgets::SeriesColours> colours = panels_->seriesColours();
  colours->restore(AppSettings().plotColours(document_->filePath()));
  colours->setOnAssigned([this] {
    if (colours_save_pending_) return;
    colours_save_pending_ = true;
    QTimer::singleShot(0, this, [this] {
      colours_save_pending_ = false;
      if (document_->isOpen())
        AppSettings().setPlotColours(document_->filePath(), panels_->seriesColours()->assignments());
    });
  });
}

void MainWindow::loadAnnotations() {
  QString error;
  const auto annotations = readRunAnnotations(QFileInfo(document_->filePath()).absolutePath(), &error);
  if (!error.isEmpty()) statusBar()->showMessage(error, 15000);
  for (auto it = annotations.cbegin(); it != annotations.cend(); ++it) {
    runs_->setAnnotation(it.key(), it->tags, it->notes);
  }
}

void MainWindow::saveAnnotations(const QString&) {
  QMap<QString, RunAnnotation> annotations;
  for (const QString& run : runs_->runNames()) annotations[run] = {runs_->tags(run), runs_->notes(run)};
  const QString error = writeRunAnnotations(QFileInfo(document_->filePath()).absolutePath(), annotations);
  if (!error.isEmpty()) statusBar()->showMessage(error, 15000);
}

void MainWindow::forgetRunFolder(const QString& run) {
  panels_->removeRun(run);
  runs_->forgetRunFolder(run);
  refreshComparison();
}

QString MainWindow::archiveRun(const QString& run) {
  QString moved_to;
  const QString archive = QFileInfo(document_->filePath()).absolutePath() + "/archive";
  const QString error = archiveRunFolder(runsDirectory(), run, archive, &moved_to);
  if (error.isEmpty()) forgetRunFolder(run);
  statusBar()->showMessage(error.isEmpty() ? "archived " + run + " to " + moved_to : error, 15000);
  return error;
}

QString MainWindow::deleteRun(const QString& run) {
  const QString error = deleteRunFolder(runsDirectory(), run);
  if (error.isEmpty()) forgetRunFolder(run);
  statusBar()->showMessage(error.isEmpty() ? "deleted the run folder of " + run : error, 15000);
  return error;
}

void MainWindow::onArchiveSelected() {
  const QString run = selectedRun();
  if (run.isEmpty()) return;
  const auto answer = QMessageBox::question(this, "Archive run",
                                            "Move the folder of " + run +
                                                " (metrics, checkpoints, log) to the project's archive/ folder?"
                                                "\nIts files are kept; it leaves the runs table.");
  if (answer == QMessageBox::Yes) archiveRun(run);
}

void MainWindow::onDeleteSelected() {
  const QString run = selectedRun();
  if (run.isEmpty()) return;
  const auto answer = QMessageBox::warning(this, "Delete run folder",
                                           "Delete the folder of " + run +
                                               " with its metrics, checkpoints and log?\nThis cannot be undone; "
                                               "Archive keeps the files instead.",
                                           QMessageBox::Yes | QMessageBox::Cancel, QMessageBox::Cancel);
  if (answer == QMessageBox::Yes) deleteRun(run);
}

}  // namespace mixerlab::gui

namespace mixerlab::gui {

void MainWindow::onNewSweep() {
  const QString run = selectedRun();
  if (run.isEmpty() || !document_->isOpen()) return;
  if (const QString why = notAProjectRun(run); !why.isEmpty()) {
    statusBar()->showMessage(why, 15000);
    return;
  }
  sweepFrom(document_->run(run), widgets::flattenConfig(document_->resolvedRun(run)).keys());
}

QString MainWindow::sweepFrom(const QJsonObject& base_run, const QStringList& known_keys) {
  const QString base_name = base_run.value("name").toString();
  widgets::SweepDialog dialog(base_run, known_keys, this);
  if (const auto draft = sweep_drafts_.find(base_name); draft != sweep_drafts_.end()) {
    dialog.setDraft(*draft);
  } else {
    dialog.setAxes({{"model.d_model", ""}, {"train.learning_rate", ""}});
  }
  dialog.setRunCheck([this](const QJsonObject& run) { return document_->checkNewRuns({run}); });
  dialog.setCreate([this](const QVector<QJsonObject>& runs, bool queue) { return createSweep(runs, queue); });
  if (dialog.exec() == QDialog::Accepted) {
    sweep_drafts_.remove(base_name);
    return {};
  }
  sweep_drafts_[base_name] = dialog.draft();
  return "cancelled";
}

QString MainWindow::createSweep(const QVector<QJsonObject>& runs, bool queue) {
  if (runs.isEmpty()) return "the sweep has no runs";
  QUndoStack* undo = document_->undoStack();
  undo->beginMacro(QString("add a sweep of %1 runs").arg(runs.size()));
  QString error;
  for (const QJsonObject& run : runs) {
    error = document_->addRun(run);
    if (!error.isEmpty()) {
      error = run.value("name").toString() + ": " + error;
      break;
    }
  }
  undo->endMacro();
  if (!error.isEmpty()) {
    undo->undo();  // all or none: take back the runs already added
    statusBar()->showMessage("sweep not created: " + error, 20000);
    return error;
  }
  if (queue && control_->queue()) {
    for (const QJsonObject& run : runs) control_->queue()->enqueue(run.value("name").toString(), false);
  }
  statusBar()->showMessage(
      QString("added %1 runs%2 (Edit > Undo removes them)").arg(runs.size()).arg(queue ? " and queued them" : ""),
      10000);
  return {};
}

}  // namespace mixerlab::gui
