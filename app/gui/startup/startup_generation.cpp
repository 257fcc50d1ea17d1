// Command-line generation at start and its screenshot (see startup_generation.h).
#include "app/gui/startup/startup_generation.h"

#include <algorithm>

#include <QApplication>
#include <QCursor>
#include <QHelpEvent>
#include <QTextEdit>
#include <QTimer>

#include "app/gui/generation/generation_panel.h"
#include "app/gui/shell/main_window.h"
#include "app/gui/startup/startup_outcome.h"
#include "app/gui/tooling/window_screenshot.h"
#include "widgets/forms/sampling_settings_form.h"
#include "widgets/generation/generation_column_view.h"

namespace mixerlab::gui {

namespace {

// Hovers a token of column 0 with visible text: the first uncertain one, else one past the middle.
void hoverAToken(GenerationPanel* panel) {
  if (panel->columnCount() == 0) return;
  widgets::GenerationColumnView* view = panel->column(0);
  auto hoverable = [view](int i) {
    return view->token(i).text.trimmed().size() >= 2 && view->tokenAt(view->tokenRect(i).center()) == i;
  };
  auto uncertain = [view](int i) {  // a likely-but-not-certain pick, among the top 5 (shown in bold)
    const widgets::TokenView& t = view->token(i);
    const bool in_top = std::any_of(t.top.begin(), t.top.end(), [&t](const auto& alt) { return alt.id == t.id; });
    return in_top && t.prob >= 0.05 && t.prob < 0.5;
  };
  int index = -1;
  for (int i = 0; i < view->tokenCount() && index < 0; ++i) {
    if (uncertain(i) && hoverable(i)) index = i;
  }
  for (int i = view->tokenCount() / 2; i < view->tokenCount() && index < 0; ++i) {
    if (hoverable(i)) index = i;
  }
  if (index < 0) return;
  QWidget* viewport = view->textView()->viewport();
  const QPoint at = view->tokenRect(index).center();
  // The mouse goes there first: the enter and leave events of the move would hide a tooltip shown
  // before them, and a tooltip stays while the mouse rests over its token.
  QCursor::setPos(viewport->mapToGlobal(at));
  QTimer::singleShot(400, viewport, [viewport, at]() {
    QHelpEvent help(QEvent::ToolTip, at, viewport->mapToGlobal(at));
    QApplication::sendEvent(viewport, &help);
  });
}

}  // namespace

void startGeneration(MainWindow& window, const StartupGeneration& options) {
  GenerationPanel* panel = window.generationPanel();
  const QString refused = window.showGeneration(options.checkpoints);
  if (!refused.isEmpty()) reportStartupProblem("--generate " + refused);
  // Nothing to generate with, or a round that cannot start: the tab shows why, and a screenshot is of that.
  auto shootTheProblem = [&window, file = options.screenshot]() {
    if (file.isEmpty()) return;
    endWithWindowScreenshot(window, file, 500);
  };
  if (panel->columnCount() == 0) {
    shootTheProblem();
    return;
  }
  auto start = [panel, shootTheProblem]() {
    const QString error = panel->generate();
    if (error.isEmpty()) return;
    reportStartupProblem("--generate: " + error);
    shootTheProblem();
  };
  if (!options.preset.isEmpty()) panel->settingsForm()->choosePreset(options.preset);
  if (options.samples > GenerationPanel::kMaxSamples) {
    reportStartupProblem(QString("--samples: %1 is over the most a column holds, %2")
                             .arg(options.samples)
                             .arg(GenerationPanel::kMaxSamples));
  }
  panel->setSamplesPerColumn(options.samples);
  if (options.max_new_tokens > 0) {
    auto values = panel->settingsForm()->values();
    values.max_new_tokens = options.max_new_tokens;
    panel->settingsForm()->setValues(values);
  }
  if (options.prompt_given) {
    panel->setPrompt(options.prompt);
    start();
  } else {
    QObject::connect(panel, &GenerationPanel::evalPromptsLoaded, panel, [panel, start]() {
      if (panel->isGenerating() || panel->hasResults()) return;
      panel->chooseEvalPrompt(0);
      start();
    });
  }
  if (options.screenshot.isEmpty()) return;
  const QString file = options.screenshot;
  QObject::connect(panel, &GenerationPanel::roundFinished, &window, [&window, panel, file]() {
    QTimer::singleShot(200, &window, [panel]() { hoverAToken(panel); });
    endWithWindowScreenshot(window, file, 1200);
  });
}

}  // namespace mixerlab::gui
