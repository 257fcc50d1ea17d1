// The main window's model-comparing tabs (Generate, Inspect, Retrieve): what the Run menu's
// "Generate from run", "Inspect representations" and "Retrieve stories with run" and the startup
// options --generate, --inspect and --retrieve add to them. One resolver turns every entry (a run
// name of the project, a folder, "untrained:" before either) into a request for the tab's
// CheckpointPicker, which applies the tab's column limit and refuses a model already shown.
#include <QStatusBar>
#include <QTabWidget>

#include "app/gui/common/checkpoint_picker.h"
#include "app/gui/common/scrolling_tabs.h"
#include "app/gui/generation/generation_panel.h"
#include "app/gui/inversion/inversion_panel.h"
#include "app/gui/retrieval/retrieval_panel.h"
#include "app/gui/runs/run_list_model.h"
#include "app/gui/shell/main_window.h"

namespace mixerlab::gui {

ColumnRequest MainWindow::resolveColumnEntry(const QString& entry) const {
  return parseColumnEntry(entry, runsDirectory(), runs_->runNames());
}

QString MainWindow::addColumnEntries(QWidget* tab, CheckpointPicker* picker, const QStringList& entries) {
  showTabPage(tabs_, tab);
  QString first_error;
  for (const QString& entry : entries) {
    const QString error = picker->add(resolveColumnEntry(entry));
    if (!error.isEmpty() && first_error.isEmpty()) first_error = entry + ": " + error;
  }
  if (!first_error.isEmpty()) statusBar()->showMessage(first_error, 10000);
  return first_error;
}

QString MainWindow::showGeneration(const QStringList& checkpoints) {
  return addColumnEntries(generation_, generation_->checkpointPicker(), checkpoints);
}

QString MainWindow::showInspection(const QStringList& models) {
  return addColumnEntries(inversion_, inversion_->checkpointPicker(), models);
}

QString MainWindow::showRetrieval(const QStringList& models) {
  return addColumnEntries(retrieval_, retrieval_->checkpointPicker(), models);
}

void MainWindow::onGenerateSelected() {
  showGeneration(selectedRun().isEmpty() ? QStringList() : QStringList{selectedRun()});
}

void MainWindow::onInspectSelected() {
  const QString run = selectedRun();
  // The run and, one click saved, its untrained twin: the comparison the research makes.
  showInspection(run.isEmpty() ? QStringList() : QStringList{run, kUntrainedPrefix + run});
}

void MainWindow::onRetrieveSelected() {
  showRetrieval(selectedRun().isEmpty() ? QStringList() : QStringList{selectedRun()});
}

}  // namespace mixerlab::gui
