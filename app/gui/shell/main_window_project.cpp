// The project's own settings in the window: File > New project (a corpus and a folder make a
// project of the research's pair, whose settings open next) and File > Project settings (corpus,
// tokenizer, defaults), each written through the project document, so an edit is validated,
// atomic and undoable like a run edit.
#include <QFileDialog>
#include <QStatusBar>

#include "app/gui/project/project_document.h"
#include "app/gui/project/project_file.h"
#include "app/gui/project/project_settings_dialog.h"
#include "app/gui/shell/main_window.h"

namespace mixerlab::gui {

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
  onProjectSettings();  // the format, eval split, vocabulary and budget are the next things to set
}

void MainWindow::onProjectSettings() {
  const QString error = editProjectSettingsInDialog();
  if (error == "cancelled") return;
  statusBar()->showMessage(error.isEmpty() ? "project settings saved" : "project settings not saved: " + error, 10000);
}

QString MainWindow::editProjectSettingsInDialog() {
  if (!document_->isOpen()) return "open a project first";
  ProjectSettingsDialog dialog(ProjectSource{document_->json(), document_->filePath(), {}}, this);
  if (dialog.exec() != QDialog::Accepted) return "cancelled";
  return document_->replaceSettings(dialog.settings());
}

}  // namespace mixerlab::gui
