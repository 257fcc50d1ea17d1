// Forking a run: Run > Fork from checkpoint and a plot point's "fork from here" open
// the run form prefilled from the parent, with the checkpoint to start from; the fork becomes a run
// of the project with its own name (in project.json, its run.json, its log and every table and
// plot), trained with `mixerlab train --run NAME --fork-from CHECKPOINT`.
#include <QFileInfo>
#include <QStatusBar>
#include <memory>

#include "app/gui/common/fork_point.h"
#include "app/gui/launch/run_launcher.h"
#include "app/gui/project/project_document.h"
#include "app/gui/project/run_setup_dialog.h"
#include "app/gui/runs/run_list_model.h"
#include "app/gui/shell/main_window.h"

namespace mixerlab::gui {

void MainWindow::onForkSelected() {
  if (selectedRun().isEmpty() || !document_->isOpen()) return;
  forkInForm(selectedRun(), {}, selectedRun() + "-fork");
}

void MainWindow::onForkFromPlot(const QString& run, double step) {
  QString error;
  const QString checkpoint = checkpointAtOrBefore(runsDirectory() + "/" + run, step, &error);
  if (checkpoint.isEmpty()) {
    statusBar()->showMessage(error, 10000);
    return;
  }
  forkInForm(run, checkpoint, run + "-from-" + QString::number(checkpointStep(checkpoint)));
}

RunSetupDialog* MainWindow::makeForkForm(const QString& run, const QString& checkpoint, const QString& new_name,
                                         QString* error) {
  if (!document_->isOpen()) {
    *error = "open a project first";
    return nullptr;
  }
  QJsonObject initial = settingsToCopy(run);
  if (initial.isEmpty()) {
    *error = run + " has no recorded settings to fork from";
    return nullptr;
  }
  initial["name"] = new_name;
  auto* form = new RunSetupDialog(ProjectSource{document_->json(), document_->filePath(), {}}, initial, this);
  form->setReservedNames(runs_->runNames());  // project runs and run folders alike
  form->setFork(run, checkpointFolders(runsDirectory() + "/" + run), checkpoint);
  return form;
}

QString MainWindow::forkInForm(const QString& run, const QString& checkpoint, const QString& new_name) {
  QString error;
  std::unique_ptr<RunSetupDialog> form(makeForkForm(run, checkpoint, new_name, &error));
  if (!form) {
    statusBar()->showMessage(error, 10000);
    return error;
  }
  RunSetupDialog& dialog = *form;
  if (dialog.exec() != QDialog::Accepted) return "cancelled";
  const QJsonObject fork = dialog.run();
  const QString name = fork.value("name").toString();
  error = document_->addRun(fork, "fork " + run + " as " + name);
  if (error.isEmpty()) {
    const QString project_file = document_->filePath();
    error = control_->start(name, runsDirectory() + "/" + name,
                            trainArguments(project_file, name, false, {}, dialog.forkCheckpoint()),
                            QFileInfo(project_file).absolutePath());
    if (error.isEmpty()) {
      statusBar()->showMessage("forking " + name + " from " + dialog.forkCheckpoint(), 8000);
      return {};
    }
    return error;  // RunControl reported it (onLaunchFailed)
  }
  statusBar()->showMessage("fork not created: " + error, 15000);
  return error;
}

}  // namespace mixerlab::gui
