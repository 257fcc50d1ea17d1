// Screenshot scenes for the docs (see screenshot_scenes.h).
#include "app/gui/startup/screenshot_scenes.h"

#include <QComboBox>
#include <QDockWidget>
#include <QLineEdit>
#include <QTabWidget>
#include <QTimer>

#include "app/gui/common/scrolling_tabs.h"
#include "app/gui/launch/reproduce_dialog.h"
#include "app/gui/launch/run_queue.h"
#include "app/gui/project/project_document.h"
#include "app/gui/project/project_settings_dialog.h"
#include "app/gui/project/run_setup_dialog.h"
#include "app/gui/runs/run_list_model.h"
#include "app/gui/shell/documentation_dock.h"
#include "app/gui/shell/help_menu.h"
#include "app/gui/shell/main_window.h"
#include "widgets/forms/sweep_dialog.h"
#include "widgets/plots/compute_frontier_view.h"
#include "widgets/plots/plot_panels.h"
#include "widgets/tables/run_comparison.h"

namespace mixerlab::gui {

QWidget* prepareScreenshotScene(MainWindow& window, const QString& scene, QString* error) {
  if (scene == "panels") {
    window.plotPanels()->setPanelMetrics({"loss", "tokens_per_s"});
    if (auto* runs_dock = window.findChild<QDockWidget*>("runs-dock"))
      window.resizeDocks({runs_dock}, {200}, Qt::Vertical);
    QTimer::singleShot(1500, &window, [&window] {                 // once the monitor has reported every run folder
      for (const QString& run : window.runModel()->runNames()) {  // the language models only
        if (run.startsWith("retrieval")) window.runModel()->setOverlaid(run, false);
      }
    });
    return &window;
  }
  if (scene == "run-table") {
    window.runModel()->setHyperparameterColumns({"model.d_model", "model.n_layers", "train.learning_rate"});
    const QStringList runs = window.project()->runNames();  // shown, not saved (no run_notes.json written)
    window.runModel()->setAnnotation(runs.value(0), {"baseline", "k=1"}, "the research's flat mixer");
    window.runModel()->setAnnotation(runs.value(1, runs.value(0)), {"baseline"}, "4 heads");
    for (const char* dock : {"log-dock", "comparison-dock", "queue-dock"}) {  // the table gets the width
      if (auto* d = window.findChild<QDockWidget*>(dock)) d->hide();
    }
    if (auto* runs_dock = window.findChild<QDockWidget*>("runs-dock"))
      window.resizeDocks({runs_dock}, {260}, Qt::Vertical);
    return &window;
  }
  if (scene == "queue") {
    if (!window.queue()) return *error = "open a project first", nullptr;
    window.queue()->setMaxRunning(0);  // held: the scene shows waiting runs, none starts
    const QStringList runs = window.project()->runNames();
    window.queue()->enqueue(runs.value(0), false, runs.value(0) + "-seed2");
    window.queue()->enqueue(runs.value(1, runs.value(0)), false, runs.value(1, runs.value(0)) + "-seed2");
    window.queue()->enqueue(runs.value(0), true);
    if (auto* dock = window.findChild<QDockWidget*>("queue-dock")) {
      dock->raise();
      window.resizeDocks({dock}, {520}, Qt::Horizontal);
    }
    return &window;
  }
  if (scene == "sweep" || scene == "sweep-check") {  // sweep-check: a value the project refuses
    const QString run = window.project()->runNames().value(0);
    auto* dialog = new widgets::SweepDialog(window.project()->run(run),
                                            widgets::flattenConfig(window.project()->resolvedRun(run)).keys(), &window);
    ProjectDocument* project = window.project();
    dialog->setRunCheck([project](const QJsonObject& r) { return project->checkNewRuns({r}); });
    if (scene == "sweep") {
      dialog->setAxes({{"model.d_model", "128, 256, 384"}, {"train.learning_rate", "1e-3, 5e-4"}});
    } else {
      dialog->setAxes({{"model.d_model", "64, abc"}, {"train.learning_rate", "1e-3"}});
    }
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->show();
    return dialog;
  }
  if (scene == "seed-groups") {  // the Curves tab with "Mean of seeds" ticked
    window.plotPanels()->setGroupSeeds(true);
    return &window;
  }
  if (scene == "seed-groups-comparison" || scene == "wall-clock-comparison") {
    // The Comparison dock raised: with "Mean of seeds", or at an equal wall-clock budget.
    if (scene == "seed-groups-comparison") window.plotPanels()->setGroupSeeds(true);
    if (auto* dock = window.findChild<QDockWidget*>("comparison-dock")) dock->raise();
    if (scene == "wall-clock-comparison") {
      if (auto* comparison = window.findChild<widgets::RunComparisonWidget*>())
        comparison->setBudget(widgets::Budget::WallSeconds);
    }
    return &window;
  }
  if (scene == "fork") {  // the fork form of the first run, from its latest checkpoint
    const QString run = window.project()->runNames().value(0);
    auto* form = window.makeForkForm(run, {}, run + "-fork", error);
    if (form) {
      form->setAttribute(Qt::WA_DeleteOnClose);
      form->show();
    }
    return form;
  }
  // The Scaling tab once the monitor has reported the runs; "seed-groups-scaling" groups it by
  // everything but the seed, with the Curves tab's "Mean of seeds" on (the same colour per group).
  if (scene == "scaling" || scene == "seed-groups-scaling") {
    const bool by_seed = scene == "seed-groups-scaling";
    if (by_seed) window.plotPanels()->setGroupSeeds(true);
    auto* tabs = window.findChild<QTabWidget*>("central-tabs");
    QTimer::singleShot(1500, &window, [tabs, by_seed] {
      for (int i = 0; tabs && i < tabs->count(); ++i) {
        if (tabs->tabText(i) != "Scaling") continue;
        tabs->setCurrentIndex(i);
        auto* grouping = tabPage(tabs, i)->findChild<QComboBox*>();
        if (by_seed && grouping) grouping->setCurrentIndex(static_cast<int>(widgets::FrontierGrouping::AllButSeed));
      }
    });
    return &window;
  }
  if (scene == "reproduce") {
    QMetaObject::invokeMethod(&window, "onReproducePaper");
    return window.findChild<ReproduceDialog*>();
  }
  if (scene == "project-settings") {  // File > Project settings on the open project
    if (!window.project()->isOpen()) return *error = "open a project first", nullptr;
    auto* dialog =
        new ProjectSettingsDialog(ProjectSource{window.project()->json(), window.project()->filePath(), {}}, &window);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->show();
    return dialog;
  }
  if (scene == "docs") {  // Help > Documentation, searched for a phrase
    DocumentationDock* dock = showDocumentation(&window);
    dock->openDocument("gpu-build.md");
    dock->search("exact resume");
    return dock;
  }
  *error = "unknown scene " + scene +
           " (panels, run-table, queue, sweep, sweep-check, fork, seed-groups, scaling, seed-groups-scaling, "
           "reproduce, project-settings, docs)";
  return nullptr;
}

void finishScreenshotScene(MainWindow& window, const QString& scene) {
  if (scene != "queue" || !window.queue()) return;
  for (const QString& run : window.queue()->pending()) window.queue()->remove(run);  // queue.json emptied
}

}  // namespace mixerlab::gui
