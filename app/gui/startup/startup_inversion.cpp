// Command-line inversion at start and its screenshots (see startup_inversion.h).
#include "app/gui/startup/startup_inversion.h"

#include <QApplication>
#include <QCursor>
#include <QHelpEvent>
#include <QTimer>

#include "app/gui/inversion/inversion_panel.h"
#include "app/gui/inversion/over_training_view.h"
#include "app/gui/shell/main_window.h"
#include "app/gui/startup/startup_outcome.h"
#include "app/gui/tooling/window_screenshot.h"
#include "widgets/forms/inversion_settings_form.h"
#include "widgets/inversion/inversion_diff_view.h"
#include "widgets/inversion/inversion_heatmap.h"

namespace mixerlab::gui {

namespace {

// Hovers a missed (else a top-k-only) token of the diff's last row, so its tooltip shows.
void hoverAMiss(widgets::InversionDiffView* diff) {
  if (diff->rowCount() == 0) return;
  const int row = diff->rowCount() - 1;
  int position = -1;
  for (const auto wanted : {widgets::InversionDiffView::Mark::kMiss, widgets::InversionDiffView::Mark::kTopK}) {
    const QVector<int> shown = diff->shownPositions(row);
    for (int i = shown.size() / 3; i < shown.size() && position < 0; ++i) {
      if (diff->mark(row, shown[i]) == wanted) position = shown[i];
    }
    if (position >= 0) break;
  }
  if (position < 0) return;
  const QPoint at = diff->cellRect(row, position).center();
  diff->ensureVisible(at.x(), at.y(), 20, 60);
  QWidget* canvas = diff->canvas();
  // The mouse goes there first: the enter and leave events of the move would hide a tooltip shown
  // before them, and a tooltip stays while the mouse rests over its token.
  QCursor::setPos(canvas->mapToGlobal(at));
  QTimer::singleShot(400, canvas, [canvas, at]() {
    QHelpEvent help(QEvent::ToolTip, at, canvas->mapToGlobal(at));
    QApplication::sendEvent(canvas, &help);
  });
}

void screenshotAfter(MainWindow& window, widgets::InversionDiffView* diff, const QString& file) {
  QTimer::singleShot(300, &window, [diff]() { hoverAMiss(diff); });
  endWithWindowScreenshot(window, file, 1300);
}

// The last checkpoint's cell at the deepest layer: where training has changed the most.
void openACell(OverTrainingView* view) {
  widgets::InversionHeatmap* heatmap = view->heatmap();
  if (heatmap->rowCount() == 0 || heatmap->columnCount() == 0) return;
  view->showCell(heatmap->rowCount() - 1, heatmap->columnCount() - 1);
}

void applyForm(InversionPanel* panel, const StartupInversion& options) {
  widgets::InversionFormValues v = panel->settingsForm()->values();
  if (options.iterations > 0) v.iterations = options.iterations;
  if (!options.layers.isEmpty() && options.layers != "all") {
    v.all_layers = false;
    v.layers.clear();
    for (const QString& layer : options.layers.split(',', Qt::SkipEmptyParts))
      v.layers.push_back(layer.trimmed().toInt());
  }
  panel->settingsForm()->setValues(v);
}

void startOverTraining(MainWindow& window, const StartupInversion& options) {
  InversionPanel* panel = window.inversionPanel();
  OverTrainingView* view = panel->overTraining();
  panel->showOverTrainingPage();
  // A run name of the project or a run folder, read as --inspect reads its entries.
  const QString error = view->setRun(window.resolveColumnEntry(options.over_training).path);
  if (!error.isEmpty()) {
    view->showMessage(error);
    reportStartupProblem("--over-training " + options.over_training + ": " + error);
    if (!options.screenshot.isEmpty()) screenshotAfter(window, view->diffView(), options.screenshot);
    return;
  }
  if (options.eval_inputs > 0) view->setEvalDocuments(options.eval_inputs);
  QObject::connect(panel, &InversionPanel::overTrainingFinished, &window, [&window, panel, view, options]() {
    openACell(view);
    if (!options.screenshot.isEmpty()) screenshotAfter(window, view->diffView(), options.screenshot);
  });
  const QString start_error = panel->invertOverTraining();
  if (start_error.isEmpty()) return;
  view->showMessage(start_error);
  reportStartupProblem("--over-training " + options.over_training + ": " + start_error);
  if (!options.screenshot.isEmpty()) screenshotAfter(window, view->diffView(), options.screenshot);
}

}  // namespace

void startInversion(MainWindow& window, const StartupInversion& options) {
  InversionPanel* panel = window.inversionPanel();
  const QString refused = window.showInspection(options.models);
  if (!refused.isEmpty()) reportStartupProblem("--inspect " + refused);
  if (!options.screenshot.isEmpty()) capDocksForScreenshot(window);
  applyForm(panel, options);
  if (options.models.isEmpty()) {
    if (!options.over_training.isEmpty()) startOverTraining(window, options);
    return;
  }
  QObject::connect(panel, &InversionPanel::runFinished, &window, [&window, panel, options]() {
    if (!options.over_training.isEmpty()) {
      startOverTraining(window, options);
    } else if (!options.screenshot.isEmpty()) {
      screenshotAfter(window, panel->diffView(), options.screenshot);
    }
  });
  // A run that cannot start says why, and a screenshot is still taken (of the error).
  auto start = [&window, panel, options]() {
    const QString error = panel->invert();
    if (error.isEmpty()) return;
    reportStartupProblem("--inspect: " + error);
    if (!options.screenshot.isEmpty()) screenshotAfter(window, panel->diffView(), options.screenshot);
  };
  if (!options.text.isEmpty()) {
    panel->setText(options.text);
    start();
  } else {
    QObject::connect(panel, &InversionPanel::evalDocumentsLoaded, panel, [panel, start]() {
      if (panel->isRunning() || panel->hasResults()) return;
      if (!panel->chooseEvalDocument(0)) panel->setText("Once upon a time");  // no eval split to read
      start();
    });
  }
}

}  // namespace mixerlab::gui
