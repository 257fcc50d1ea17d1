// Command-line retrieval at start and its screenshot (see startup_retrieval.h).
#include "app/gui/startup/startup_retrieval.h"

#include <memory>

#include "app/gui/retrieval/retrieval_panel.h"
#include "app/gui/shell/main_window.h"
#include "app/gui/startup/startup_outcome.h"
#include "app/gui/tooling/window_screenshot.h"

namespace mixerlab::gui {

namespace {
struct Progress {
  int settled = 0;  // columns ready or failed
  int shown = 0;    // result lists on screen since the query
  bool queried = false;
};
}  // namespace

void startRetrieval(MainWindow& window, const StartupRetrieval& options) {
  RetrievalPanel* panel = window.retrievalPanel();
  if (!options.screenshot.isEmpty()) capDocksForScreenshot(window);
  if (options.synthetic_count > 0) panel->setCorpus(RetrievalCorpus::synthetic(options.synthetic_count));
  const QString refused = window.showRetrieval(options.models);
  if (!refused.isEmpty()) reportStartupProblem("--retrieve " + refused);
  const int columns = panel->columnCount();
  auto progress = std::make_shared<Progress>();
  auto finish = [&window, options]() {
    if (options.screenshot.isEmpty()) return;
    endWithWindowScreenshot(window, options.screenshot, 600);
  };
  auto query = [panel, options, progress, finish]() {
    progress->queried = true;
    if (!options.query.isEmpty()) {
      panel->setQuery(options.query);
      panel->searchNow();
    } else if (!panel->chooseHeldOut(options.held_out - 1)) {
      finish();  // nothing to show but the columns' errors
    }
  };
  auto settle = [progress, columns, query]() {
    if (++progress->settled == columns) query();
  };
  QObject::connect(panel, &RetrievalPanel::columnReady, &window, [settle](int) { settle(); });
  QObject::connect(panel, &RetrievalPanel::columnFailed, &window, [settle](int, const QString&) { settle(); });
  QObject::connect(panel, &RetrievalPanel::resultsShown, &window, [progress, panel, finish](int) {
    // The query's results in every ready column (results of the empty query at open do not count).
    if (!progress->queried) return;
    int ready = 0;
    for (int i = 0; i < panel->columnCount(); ++i) ready += panel->isReady(i) ? 1 : 0;
    if (++progress->shown == ready) finish();
  });
  if (columns == 0) finish();
}

}  // namespace mixerlab::gui
