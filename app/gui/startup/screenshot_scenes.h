// The workbench states the README's screenshots show, reproducible from the command line
// (`mixerlab-gui --scene NAME --screenshot FILE`): "panels" (the loss with a tokens/s and a
// learning-rate panel), "run-table" (hyperparameter columns, tags, a filter), "queue" (three
// waiting runs; the queue is held so nothing starts, and emptied again before exit), "sweep"
// (the sweep editor over d_model x learning rate; the dialog is what is saved), "scaling" (the
// Scaling tab: frontiers and power-law fits) and "reproduce" (the Reproduce-the-paper dialog).
#pragma once
#include <QString>

class QWidget;

namespace mixerlab::gui {

class MainWindow;

// Sets the scene up; returns the widget to save (the window, or a dialog it opened), nullptr and
// *error for an unknown scene.
QWidget* prepareScreenshotScene(MainWindow& window, const QString& scene, QString* error);
// Undoes what the scene changed outside the window (the saved queue) before the program exits.
void finishScreenshotScene(MainWindow& window, const QString& scene);

}  // namespace mixerlab::gui
