// GUI tests (offscreen): the loss series never overlaps after a resume; opening another project
// leaves nothing of the previous one on the plot; the real main window
// launches a short run as a child process, sees it finish and draws its curve; closing and
// reopening the window mid-run reattaches to the run.
#include <QtTest/QtTest>

#include <QAbstractButton>
#include <QAction>
#include <QApplication>
#include <QMenuBar>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTextBrowser>
#include <QTimer>

#include <fstream>

#include <nlohmann/json.hpp>

#include <QScrollArea>
#include <QSettings>
#include "app/gui/common/app_settings.h"
#include "app/gui/common/scrolling_tabs.h"
#include "app/gui/launch/launch_target_selector.h"
#include "app/gui/runs/run_list_model.h"
#include "app/gui/shell/documentation_dock.h"
#include "app/gui/shell/help_menu.h"
#include "app/gui/shell/main_window.h"
#include "core/config/project_config.h"
#include "core/runs/metrics_log.h"
#include "core/runs/run_info.h"
#include "core/runs/run_status.h"
#include "tests/training_fixture.h"
#include "widgets/plots/loss_plot_widget.h"
#include "widgets/plots/plot_panels.h"
#include "widgets/tables/frozen_column_table_view.h"
#include "widgets/tables/run_comparison.h"

using namespace mixerlab;
namespace fs = std::filesystem;

namespace {
RunStatus finishedStatus() {
  RunStatus status;
  status.state = RunState::Finished;
  return status;
}

// A finished run folder runs/<run> with train losses 6.0 - 0.01 * step for steps 1..steps.
void writeFinishedRun(const fs::path& project_dir, const char* run, int steps) {
  const fs::path dir = project_dir / "runs" / run;
  fs::create_directories(dir);
  MetricsWriter metrics(dir / "metrics.jsonl");
  for (int step = 1; step <= steps; ++step) {
    MetricsRecord r;
    r.step = step;
    r.train_loss = 6.0 - 0.01 * step;
    metrics.append(r);
  }
  writeRunStatus(dir, finishedStatus());
}
}  // namespace

class TestGui : public QObject {
  Q_OBJECT
  fs::path dir_, project_;

 private Q_SLOTS:
  void initTestCase() {
    qputenv("MIXERLAB_CLI", QByteArray::fromStdString(testing::cliPath().string()));
    dir_ = testing::makeScratchDir("gui");
    project_ = testing::writeTinyProject(
        dir_, R"(, "max_steps": 120, "schedule_steps": 120, "checkpoint_every": 20, "eval_every": 20)", 64, 64);
  }

  void resumedSeriesDrawsAsOneLine() {
    widgets::LossSeries s;
    for (int step = 1; step <= 10; ++step) s.appendTrain({double(step), 0, 0, 5.0 - step * 0.1});
    // A resume from the checkpoint at step 6 re-logs steps 7..12.
    for (int step = 7; step <= 12; ++step) s.appendTrain({double(step), 0, 0, 4.0});
    QCOMPARE(s.train.size(), 12);
    for (int i = 0; i < s.train.size(); ++i) QCOMPARE(s.train[i].step, double(i + 1));
    widgets::LossPlotWidget plot;
    plot.setSeries(s);
    QCOMPARE(plot.graphCount(), 1);
    QCOMPARE(plot.pointCount("", false), 12);
  }

  // A growing metrics log reaches the plot as appended points: every panel, the loss panel and a
  // metric panel, holds every point once, in step order.
  void liveMetricsReachThePlotAsAppendedPoints() {
    const fs::path dir = testing::makeScratchDir("gui-live-points");
    const fs::path project = testing::writeTinyProject(dir);
    const fs::path run_dir = dir / "runs" / "mixer";
    fs::create_directories(run_dir);
    auto log_steps = [&](int first, int last) {
      MetricsWriter metrics(run_dir / "metrics.jsonl");
      for (int step = first; step <= last; ++step) {
        MetricsRecord r;
        r.step = step;
        r.train_loss = 6.0 - 0.01 * step;
        r.learning_rate = 1e-3;
        metrics.append(r);
      }
    };
    log_steps(1, 10);
    writeRunStatus(run_dir, finishedStatus());  // the plot takes points whatever the state says
    gui::MainWindow window;
    window.show();
    QCOMPARE(window.openProject(QString::fromStdString(project.string())), QString());
    auto* panels = window.findChild<widgets::PlotPanels*>();
    QVERIFY(panels != nullptr);
    widgets::LossPlotWidget* lr = panels->addPanel("lr");
    QTRY_COMPARE_WITH_TIMEOUT(window.lossPlot()->pointCount("mixer", false), 10, 20000);
    log_steps(11, 25);
    QTRY_COMPARE_WITH_TIMEOUT(window.lossPlot()->pointCount("mixer", false), 25, 20000);
    QTRY_COMPARE_WITH_TIMEOUT(lr->drawnPointCount("mixer", false), 25, 20000);
    log_steps(26, 30);
    QTRY_COMPARE_WITH_TIMEOUT(window.lossPlot()->drawnPointCount("mixer", false), 30, 20000);
    QCOMPARE(window.lossPlot()->pointCount("mixer", false), 30);
    panels->closePanel(lr);
  }

  // After File > Open of another project, nothing of the previous project's runs
  // may stay on the plot (or reach its exports), even a monitor report still queued at the switch.
  void openingAnotherProjectClearsThePlot() {
    const fs::path a = testing::makeScratchDir("gui-project-a"), b = testing::makeScratchDir("gui-project-b");
    const fs::path project_a = testing::writeTinyProject(a), project_b = testing::writeTinyProject(b);
    for (const char* run : {"mixer", "llama", "extra"}) writeFinishedRun(a, run, 50);
    gui::MainWindow window;
    window.show();
    QCOMPARE(window.openProject(QString::fromStdString(project_a.string())), QString());
    QTRY_VERIFY_WITH_TIMEOUT(window.lossPlot()->pointCount("extra", false) == 50, 20000);
    for (int i = 0; i < 5; ++i) {  // switch back and forth, leaving reports in flight
      QCOMPARE(window.openProject(QString::fromStdString(project_b.string())), QString());
      QTest::qWait(i * 40);
      QCOMPARE(window.openProject(QString::fromStdString(project_a.string())), QString());
      QTest::qWait(i * 40);
    }
    QCOMPARE(window.openProject(QString::fromStdString(project_b.string())), QString());
    QTest::qWait(1500);  // several monitor polls of project b
    QCOMPARE(window.lossPlot()->pointCount("mixer", false), 0);
    QCOMPARE(window.lossPlot()->pointCount("extra", false), 0);
    QCOMPARE(window.lossPlot()->graphCount(), 0);
    QCOMPARE(window.runTable()->model()->rowCount(), 2);  // b's two runs, not a's "extra"
  }

  // The tests kept the user's real settings, so a user's next launch could open a
  // test's temporary project. A test's settings live in its own scope.
  void settingsStayOutOfTheUsersConfiguration() {
    const QString user_file = QSettings("MixerLab", "mixerlab-gui").fileName();
    const QFileInfo before(user_file);
    const QDateTime modified = before.exists() ? before.lastModified() : QDateTime();
    {
      gui::MainWindow window;
      QCOMPARE(window.openProject(QString::fromStdString(project_.string())), QString());
      window.close();
    }
    const gui::AppSettings settings;
    QVERIFY2(!settings.fileName().startsWith(QFileInfo(user_file).absolutePath()), qPrintable(settings.fileName()));
    QCOMPARE(settings.lastProject(), QString::fromStdString(project_.string()));
    QCOMPARE(QFileInfo::exists(user_file), before.exists());
    if (before.exists()) QCOMPARE(QFileInfo(user_file).lastModified(), modified);
  }

  // Queue run was "Ctrl+Q, Ctrl+R" while Quit is Ctrl+Q, so pressing it quit. No
  // shortcut of the window may equal another or start another's key sequence.
  void shortcutsNeverShadowEachOther() {
    gui::MainWindow window;
    QList<QPair<QString, QKeySequence>> keys;
    for (QAction* action : window.findChildren<QAction*>()) {
      for (const QKeySequence& k : action->shortcuts()) {
        if (!k.isEmpty()) keys.append({action->text(), k});
      }
    }
    QVERIFY(keys.size() >= 10);
    for (int i = 0; i < keys.size(); ++i) {
      for (int j = 0; j < keys.size(); ++j) {
        if (i == j || keys[i].first == keys[j].first) continue;
        QVERIFY2(keys[j].second.matches(keys[i].second) == QKeySequence::NoMatch,
                 qPrintable(keys[i].first + " (" + keys[i].second.toString() + ") and " + keys[j].first + " (" +
                            keys[j].second.toString() + ")"));
      }
    }
  }

  // Every tab is a keystroke away (View > tab, Ctrl+1 on, in tab order), and so are Compare configs
  // and Reproduce; Tab leaves the runs table instead of walking its cells.
  void tabsAndTheMainDialogsHaveShortcuts() {
    gui::MainWindow window;
    auto* tabs = window.findChild<QTabWidget*>("central-tabs");
    QVERIFY(tabs && tabs->count() >= 5);
    const auto table = gui::shortcutTable(window.menuBar());
    for (int i = tabs->count() - 1; i >= 0; --i) {
      const QString keys = QKeySequence(QString("Ctrl+%1").arg(i + 1)).toString(QKeySequence::NativeText);
      QVERIFY2(table.contains(qMakePair("View > " + tabs->tabText(i), keys)), qPrintable(tabs->tabText(i)));
      QAction* action = nullptr;
      for (QAction* a : window.findChildren<QAction*>()) {
        if (a->text() == tabs->tabText(i) && a->shortcut() == QKeySequence(keys)) action = a;
      }
      QVERIFY(action);
      action->trigger();
      QCOMPARE(tabs->currentIndex(), i);
    }
    QVERIFY(table.contains(qMakePair(QString("Run > Compare configs..."),
                                     QKeySequence("Ctrl+Shift+C").toString(QKeySequence::NativeText))));
    QVERIFY(table.contains(qMakePair(QString("Run > Reproduce the paper..."),
                                     QKeySequence("Ctrl+Shift+P").toString(QKeySequence::NativeText))));
    auto* runs = window.findChild<widgets::FrozenColumnTableView*>();
    QVERIFY(runs);
    QVERIFY(!runs->tabKeyNavigation());
  }

  // The shortcuts table is generated from the menus (so it lists every
  // shortcut, with its menu path), About names the versions and the BLAS in use, and the docs are found.
  void helpMenuShortcutsAboutAndDocs() {
    gui::MainWindow window;
    const auto table = gui::shortcutTable(window.menuBar());
    QVERIFY(
        table.contains(qMakePair(QString("Run > Train"), QKeySequence("Ctrl+R").toString(QKeySequence::NativeText))));
    QVERIFY(table.contains(
        qMakePair(QString("Help > Keyboard shortcuts"), QKeySequence("Ctrl+/").toString(QKeySequence::NativeText))));
    QVERIFY(table.size() >= 12);
    const QString about = gui::aboutText();
    QVERIFY2(about.contains("LibTorch 1.") || about.contains("LibTorch 2."), qPrintable(about));
    QVERIFY2(about.contains("BLAS in use: /"), qPrintable(about));
    QVERIFY(about.contains("Qt 6."));
    const QStringList docs = gui::documentationFiles();
    QVERIFY(!docs.isEmpty());
    QVERIFY(docs.front().endsWith("/README.md"));
    QVERIFY(std::any_of(docs.begin(), docs.end(), [](const QString& f) { return f.endsWith("docs/reliability.md"); }));
  }

  // Help > Documentation renders the docs in a dock (no desktop launcher needed): the
  // README first, any document by name, a search that narrows the list and selects the words, and
  // links between documents followed inside the dock.
  void documentationOpensInASearchableDock() {
    gui::MainWindow window;
    window.resize(1280, 800);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QAction* action = nullptr;
    for (QAction* a : window.menuBar()->findChildren<QAction*>()) {
      if (a->text().remove('&') == "Documentation") action = a;
    }
    QVERIFY(action != nullptr);
    action->trigger();
    action->trigger();  // a second time raises the same dock
    const auto docks = window.findChildren<gui::DocumentationDock*>();
    QCOMPARE(docks.size(), 1);
    gui::DocumentationDock* dock = docks.front();
    QVERIFY(dock->isVisible());
    QCOMPARE(dock->currentDocument(), QString("README.md"));
    QVERIFY(dock->browser()->toPlainText().contains("MixerLab"));
    QVERIFY(dock->openDocument("gpu-build.md"));
    QVERIFY(dock->browser()->toPlainText().contains("Build here, run there"));
    QVERIFY(!dock->openDocument("no-such.md"));

    dock->search("Pareto frontier");
    const QStringList shown = dock->shownDocuments();
    QVERIFY(!shown.isEmpty());
    QVERIFY(!shown.contains("gpu-build.md"));  // it never mentions the words
    for (const QString& file : gui::documentationFiles()) {
      QFile f(file);
      QVERIFY(f.open(QIODevice::ReadOnly));
      const bool mentions = QString::fromUtf8(f.readAll()).contains("Pareto frontier", Qt::CaseInsensitive);
      QCOMPARE(shown.contains(QFileInfo(file).fileName()), mentions);
    }
    QVERIFY(shown.contains(dock->currentDocument()));
    QCOMPARE(dock->browser()->textCursor().selectedText().toLower(), QString("pareto frontier"));

    // Words no document holds: typed key by key, each prefix may open a document that holds it;
    // the whole phrase leaves the reader in the document open before the search, with the note.
    dock->search("");
    QVERIFY(dock->openDocument("gpu-build.md"));
    const QString phrase = "Pareto frontier zebra quartz";  // its prefix "Pareto frontier" opens another document
    for (int n = 1; n <= phrase.size(); ++n) dock->search(phrase.left(n));
    QVERIFY(dock->shownDocuments().isEmpty());
    QCOMPARE(dock->currentDocument(), QString("gpu-build.md"));
    QVERIFY(dock->browser()->toPlainText().contains("Build here, run there"));
    dock->search("");
    QCOMPARE(dock->shownDocuments().size(), gui::documentationFiles().size());
    QVERIFY(dock->openDocument("README.md"));
    Q_EMIT dock->browser()->anchorClicked(QUrl("docs/reproduce.md"));
    QCOMPARE(dock->currentDocument(), QString("reproduce.md"));
  }

  // Every tab is usable on a 1280x800 laptop screen: the window can be that small, showing a
  // tab does not make it grow, and no button of the tab is squeezed below its text ("Add ru").
  // The window needed 1133x774 (the Inspect and Generate pages' least size), so on a 1024x700
  // screen its right side and status bar were off screen. Each page scrolls inside its tab now: the
  // window fits 1024x700, and at both laptop sizes no page squeezes a button below its size.
  void everyTabFitsALaptopScreen() {
    gui::MainWindow window;
    QCOMPARE(window.openProject(
                 QString::fromStdString(testing::writeDemoProjectCopy(testing::makeScratchDir("gui-laptop")).string())),
             QString());
    // The comparison with everything it can show: a shared-machine note and a group summary.
    auto* comparison = window.findChild<widgets::RunComparisonWidget*>();
    QVERIFY(comparison != nullptr);
    QVector<widgets::RunCurve> curves(6);
    for (int i = 0; i < curves.size(); ++i) {
      curves[i].run = QString("a-run-with-a-long-name-seed%1").arg(i);
      curves[i].other_cpu_cores = 1.5;
      curves[i].points = {{0, 0, 0, 0, 5.0, 5.0}, {10, 100, 20, 1e9, 4.0, 4.2}};
    }
    comparison->setRuns(curves);
    comparison->setGroups({{curves[0].run, "group"}, {curves[1].run, "group"}});
    comparison->setBudget(widgets::Budget::WallSeconds);
    QVERIFY(!comparison->sharedMachineNote()->isHidden() && !comparison->groupsTable()->isHidden());
    const QSize least = window.minimumSizeHint();
    QVERIFY2(least.width() <= 1024 && least.height() <= 700,
             qPrintable(QString("the window needs at least %1x%2").arg(least.width()).arg(least.height())));
    auto* tabs = window.findChild<QTabWidget*>("central-tabs");
    QVERIFY(tabs);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    for (const QSize screen : {QSize(1024, 700), QSize(1280, 800)}) {
      window.resize(screen);
      QStringList squeezed;
      for (int i = 0; i < tabs->count(); ++i) {
        tabs->setCurrentIndex(i);
        QTest::qWait(50);
        QCOMPARE(window.size(), screen);
        QWidget* page = gui::currentTabPage(tabs);
        QVERIFY(page != nullptr && page != tabs->currentWidget());  // the page sits in its scroll area
        for (QAbstractButton* button : page->findChildren<QAbstractButton*>()) {
          if (!button->isVisible() || button->text().isEmpty()) continue;
          if (button->width() + 1 < button->sizeHint().width()) {
            squeezed << QString("%1 at %2x%3: \"%4\" %5 px of %6")
                            .arg(tabs->tabText(i))
                            .arg(screen.width())
                            .arg(screen.height())
                            .arg(button->text())
                            .arg(button->width())
                            .arg(button->sizeHint().width());
          }
        }
        // A page wider or taller than the tab scrolls there instead of widening the window.
        auto* area = qobject_cast<QScrollArea*>(tabs->currentWidget());
        QVERIFY(area != nullptr);
        if (page->minimumSizeHint().width() > area->viewport()->width())
          QVERIFY(page->width() >= page->minimumSizeHint().width());
        else  // a page that fits fills its tab, not just its size hint
          QCOMPARE(page->width(), area->viewport()->width());
      }
      QVERIFY2(squeezed.isEmpty(), qPrintable(squeezed.join("; ")));
    }
  }

  // Opening another project resets the launch target to this machine and clears the runs filter;
  // reopening the same project keeps both.
  void anotherProjectResetsTheLaunchTarget() {
    const fs::path first = testing::writeTinyProject(testing::makeScratchDir("gui-target-a"));
    const fs::path second = testing::writeTinyProject(testing::makeScratchDir("gui-target-b"));
    gui::MainWindow window;
    QCOMPARE(window.openProject(QString::fromStdString(first.string())), QString());
    auto* selector = window.findChild<gui::LaunchTargetSelector*>();
    QVERIFY(selector != nullptr);
    QVERIFY(selector->targets().value(0) == gui::LaunchTargetSpec::local());
    QVERIFY(selector->setCurrentTarget(gui::LaunchTargetSpec::localRanks(2)));
    QCOMPARE(window.openProject(QString::fromStdString(first.string())), QString());
    QVERIFY(selector->currentTarget() == gui::LaunchTargetSpec::localRanks(2));
    window.runFilterEdit()->setText("llama");  // kept when the same project is opened again
    QCOMPARE(window.openProject(QString::fromStdString(first.string())), QString());
    QCOMPARE(window.runFilterEdit()->text(), QString("llama"));
    QCOMPARE(window.openProject(QString::fromStdString(second.string())), QString());
    QVERIFY(selector->currentTarget() == gui::LaunchTargetSpec::local());
    QVERIFY(window.runFilterEdit()->text().isEmpty());  // the other project's table is not filtered empty
  }

  // A launch the CLI refuses said "started" and nothing happened. Now the run list
  // shows "failed to start" with the CLI's own message, and so does the status bar.
  void refusedLaunchShowsTheCliMessage() {
    const fs::path dir = testing::makeScratchDir("gui-refused");
    const fs::path project = testing::writeTinyProject(dir);
    testing::writeText(dir / "runs" / "llama" / "run.json", "{}");  // "already exists; pass --resume"
    gui::MainWindow window;
    QCOMPARE(window.openProject(QString::fromStdString(project.string())), QString());
    QCOMPARE(window.launch("llama", false), QString());
    QTRY_COMPARE_WITH_TIMEOUT(window.runState("llama"), QString("failed to start"), 30000);
    const QModelIndex status = window.runModel()->index(window.runModel()->rowOf("llama"), gui::RunListModel::Status);
    const QString shown = window.runModel()->data(status).toString();
    QVERIFY2(shown.contains("already exists") && shown.contains("--resume"), qPrintable(shown));
    QVERIFY2(window.statusBar()->currentMessage().contains("llama did not start"),
             qPrintable(window.statusBar()->currentMessage()));
    QTest::qWait(800);  // monitor polls of the run folder (no status.json) keep the message
    QCOMPARE(window.runState("llama"), QString("failed to start"));
  }

  // Edit run on a forked run opened the form with an empty name and unrelated
  // values (the project has no entry by that name). Now it says why and opens nothing.
  void editOnAForkSaysWhy() {
    const fs::path dir = testing::makeScratchDir("gui-fork-edit");
    const fs::path project_file = testing::writeTinyProject(dir);
    const ProjectConfig project = loadProject(project_file);
    writeRunInfo(dir / "runs" / "mixer-fork", runInfoFor(project, project.run("mixer")));
    writeRunStatus(dir / "runs" / "mixer-fork", finishedStatus());
    gui::MainWindow window;
    window.show();
    QCOMPARE(window.openProject(QString::fromStdString(project_file.string())), QString());
    QTRY_VERIFY_WITH_TIMEOUT(window.runModel()->rowOf("mixer-fork") >= 0, 10000);
    window.runTable()->selectRow(window.runModel()->rowOf("mixer-fork"));
    bool dialog_opened = false;
    QTimer::singleShot(800, [&dialog_opened]() {  // the old behaviour: a modal form; close it
      if (QWidget* modal = QApplication::activeModalWidget()) {
        dialog_opened = true;
        modal->close();
      }
    });
    QAction* edit = nullptr;
    for (QAction* a : window.findChildren<QAction*>()) {
      if (a->text() == "&Edit run...") edit = a;
    }
    QVERIFY(edit != nullptr);
    edit->trigger();
    QTest::qWait(1000);
    QVERIFY(!dialog_opened);
    QVERIFY2(window.statusBar()->currentMessage().contains("not a run of the project (a fork of mixer)"),
             qPrintable(window.statusBar()->currentMessage()));
  }

  // The plot's axis, log scales and smoothing were forgotten at every restart.
  void plotViewIsKeptAcrossRestarts() {
    {
      gui::MainWindow window;
      window.lossPlot()->setAxis(widgets::LossAxis::Tokens);
      window.lossPlot()->setLogY(true);
      widgets::Smoothing s;
      s.kind = widgets::SmoothingKind::Ema;
      s.ema_weight = 0.8;
      window.lossPlot()->setSmoothing(s);
    }
    gui::MainWindow reopened;
    QCOMPARE(reopened.lossPlot()->axis(), widgets::LossAxis::Tokens);
    QVERIFY(reopened.lossPlot()->logY());
    QVERIFY(!reopened.lossPlot()->logX());
    QCOMPARE(reopened.lossPlot()->smoothing().kind, widgets::SmoothingKind::Ema);
    QCOMPARE(reopened.lossPlot()->smoothing().ema_weight, 0.8);
    reopened.lossPlot()->setAxis(widgets::LossAxis::Step);  // leave the default for the tests after this one
    reopened.lossPlot()->setLogY(false);
    reopened.lossPlot()->setSmoothing(widgets::Smoothing{});
  }

  // The window tells the Curves tab how runs group: "Mean of seeds" by the run name without its
  // seed suffix, "Mean by <field>" by the run's value of that setting (none here: the runs are not
  // in a project, so all share the empty value).
  // Colours went by the order runs were first drawn, so a project opened again could swap them.
  // The assignments are kept per project: a run keeps its colour whatever order it is read in.
  void runColoursSurviveReopeningTheProject() {
    const fs::path dir = testing::makeScratchDir("gui-colours");
    const fs::path project = testing::writeTinyProject(dir);
    for (const char* run : {"mixer", "llama"}) writeFinishedRun(dir, run, 5);
    QColor mixer, llama;
    {
      gui::MainWindow window;
      window.show();
      QCOMPARE(window.openProject(QString::fromStdString(project.string())), QString());
      window.plotPanels()->seriesColours()->colour("a group seen first");  // takes the first colour
      QTRY_VERIFY_WITH_TIMEOUT(
          window.lossPlot()->pointCount("mixer", false) == 5 && window.lossPlot()->pointCount("llama", false) == 5,
          20000);
      mixer = window.lossPlot()->runColour("mixer");
      llama = window.lossPlot()->runColour("llama");
      QVERIFY(mixer != widgets::SeriesColours::paletteColour(0) && llama != widgets::SeriesColours::paletteColour(0));
      QTest::qWait(50);  // the queued save
    }
    gui::MainWindow reopened;
    reopened.show();
    QCOMPARE(reopened.openProject(QString::fromStdString(project.string())), QString());
    QTRY_VERIFY_WITH_TIMEOUT(
        reopened.lossPlot()->pointCount("mixer", false) == 5 && reopened.lossPlot()->pointCount("llama", false) == 5,
        20000);
    QCOMPARE(reopened.lossPlot()->runColour("mixer"), mixer);
    QCOMPARE(reopened.lossPlot()->runColour("llama"), llama);
    const QColor fresh = reopened.plotPanels()->seriesColours()->colour("a new group");  // after the kept ones
    QVERIFY(fresh != mixer && fresh != llama && fresh != widgets::SeriesColours::paletteColour(0));
  }

  // A kept colour that is not a palette slot (an edited or damaged settings file) is dropped, so it
  // can never take a colour another run holds: a word reads as no slot, and so does a negative one.
  void savedColoursThatAreNoSlotAreDropped() {
    const QString project = QString::fromStdString((testing::makeScratchDir("gui-colour-slots") / "p.json").string());
    gui::AppSettings settings;
    settings.setPlotColours(project, {{"kept", 3}, {"negative", -2}, {"first", 0}});
    QSettings raw(settings.fileName(), QSettings::IniFormat);
    for (const QString& key : raw.allKeys()) {
      if (!key.startsWith("plot_colours/")) continue;
      QVariantMap saved = raw.value(key).toMap();
      if (!saved.contains("kept")) continue;
      saved["word"] = QString("blue");
      raw.setValue(key, saved);
    }
    raw.sync();
    const QHash<QString, int> read = gui::AppSettings().plotColours(project);
    QCOMPARE(read, (QHash<QString, int>{{"kept", 3}, {"first", 0}}));
  }

  // Changing how runs group redraws the Comparison dock's group table at once: it is the
  // window's wiring (the panels say their groups changed), not a later refresh, that shows it.
  void regroupingRunsFillsTheComparisonGroupTable() {
    const fs::path dir = testing::makeScratchDir("gui-group-table");
    const fs::path project = testing::writeTinyProject(dir);
    for (const char* run : {"mixer", "llama"}) writeFinishedRun(dir, run, 5);
    gui::MainWindow window;
    window.show();
    QCOMPARE(window.openProject(QString::fromStdString(project.string())), QString());
    QTRY_VERIFY_WITH_TIMEOUT(
        window.lossPlot()->pointCount("mixer", false) == 5 && window.lossPlot()->pointCount("llama", false) == 5,
        20000);
    auto* comparison = window.findChild<widgets::RunComparisonWidget*>();
    QVERIFY(comparison != nullptr);
    QTest::qWait(50);
    QVERIFY(comparison->groupsTable()->isHidden());  // every run its own group
    window.plotPanels()->setGroupingFields({"train.learning_rate"});
    window.plotPanels()->setGrouping("field:train.learning_rate");  // both runs share it
    QVERIFY(!comparison->groupsTable()->isHidden());
    QCOMPARE(comparison->groupsTable()->rowCount(), 1);
    QCOMPARE(comparison->groupsTable()->item(0, widgets::RunComparisonWidget::GroupRuns)->text(), QString("2"));
    window.plotPanels()->setGrouping(QString());
    QVERIFY(comparison->groupsTable()->isHidden());
  }

  void curveGroupingUsesSeedsAndSettings() {
    gui::MainWindow window;
    auto* panels = window.findChild<widgets::PlotPanels*>();
    QVERIFY(panels != nullptr);
    for (const char* run : {"mixer-seed1", "mixer-seed2", "llama"}) {
      widgets::LossSeries s;
      s.run = run;
      const double loss = QString(run) == "llama" ? 5.0 : QString(run).right(1).toDouble();
      for (int step = 1; step <= 4; ++step) s.appendTrain({double(step), step * 512.0, step * 0.5, loss, 0});
      panels->setSeries(s);
    }
    panels->setGroupSeeds(true);
    QStringList lines = panels->firstPanel()->readoutAcrossRuns(2).split(QChar(10));
    QVERIFY2(lines.contains("mixer (mean of 2) train: 1.5") && lines.contains("llama train: 5"),
             qPrintable(lines.join(" | ")));
    panels->setGroupingFields({"train.learning_rate"});
    panels->setGrouping("field:train.learning_rate");
    lines = panels->firstPanel()->readoutAcrossRuns(2).split(QChar(10));
    QVERIFY2(lines.contains("train.learning_rate =  (mean of 3) train: 2.6667"), qPrintable(lines.join(" | ")));
    panels->setGrouping(QString());
  }

  void launchRunFromTheWindowAndReattach() {
    auto window = std::make_unique<gui::MainWindow>();
    QCOMPARE(window->openProject(QString::fromStdString(project_.string())), QString());
    QCOMPARE(window->runTable()->model()->rowCount(), 2);
    window->show();
    QCOMPARE(window->launch("mixer", false), QString());
    // A tiny run may already be done by the monitor's next poll: either state shows it started.
    QTRY_VERIFY_WITH_TIMEOUT(window->runState("mixer") == "running" || window->runState("mixer") == "finished", 60000);
    QTRY_VERIFY_WITH_TIMEOUT(window->lossPlot()->pointCount("mixer", false) > 0, 60000);
    // Close the window while the run goes on; a new window reattaches and sees it finish.
    window->close();
    window.reset();
    auto reopened = std::make_unique<gui::MainWindow>();
    QCOMPARE(reopened->openProject(QString::fromStdString(project_.string())), QString());
    reopened->show();
    QTRY_COMPARE_WITH_TIMEOUT(reopened->runState("mixer"), QString("finished"), 240000);
    QTRY_COMPARE_WITH_TIMEOUT(reopened->lossPlot()->pointCount("mixer", false), 120, 10000);
    QVERIFY(reopened->lossPlot()->pointCount("mixer", true) >= 6);  // step 0 + every 20 steps
    QVERIFY(reopened->lossPlot()->graphCount() >= 2);
    const QString shot = QString::fromStdString((dir_ / "main-window.png").string());
    QVERIFY(reopened->grab().save(shot));
    QVERIFY(QFileInfo(shot).size() > 10000);
  }

  // The demo project (copied, corpus paths made absolute, budget cut to 40 steps so CI stays fast):
  // select the mixer run, press the real Train action, wait for "finished" and the curve.
  void demoProjectTrainThroughTheToolbar() {
    const fs::path dir = testing::makeScratchDir("gui-demo");
    testing::writeDemoProjectCopy(dir, {{"max_steps", 40}, {"eval_every", 20}, {"checkpoint_every", 20}});
    gui::MainWindow window;
    QCOMPARE(window.openProject(QString::fromStdString((dir / "project.json").string())), QString());
    window.show();
    window.runTable()->selectRow(0);
    QAction* train = nullptr;
    for (QAction* a : window.findChildren<QAction*>()) {
      if (a->text() == "Train") train = a;
    }
    QVERIFY(train != nullptr);
    train->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(window.runState("mixer"), QString("finished"), 300000);
    QTRY_VERIFY_WITH_TIMEOUT(window.lossPlot()->pointCount("mixer", true) >= 3, 10000);  // eval at 0, 20, 40
    QVERIFY(window.lossPlot()->pointCount("mixer", false) >= 4);
    // Unticking a run removes it from the plot; ticking it brings it back.
    const int graphs = window.lossPlot()->graphCount();
    QAbstractItemModel* runs = window.runTable()->model();
    QVERIFY(runs->setData(runs->index(0, 0), Qt::Unchecked, Qt::CheckStateRole));
    QVERIFY(window.lossPlot()->graphCount() < graphs);
    QVERIFY(runs->setData(runs->index(0, 0), Qt::Checked, Qt::CheckStateRole));
    QCOMPARE(window.lossPlot()->graphCount(), graphs);
    qInfo("event loop max latency while the demo run trained: %.1f ms", window.eventLoopMaxLatencyMs());
  }

  void badProjectShowsError() {
    gui::MainWindow window;
    const QString error = window.openProject("/nonexistent/project.json");
    QVERIFY(error.contains("does not exist"));
  }
};

QTEST_MAIN(TestGui)
#include "test_gui.moc"
