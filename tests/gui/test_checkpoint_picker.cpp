// Tests of the checkpoint-column picker shared by the Generate, Inspect and Retrieve tabs
// (offscreen), on a real project folder whose run folders and step-N checkpoint folders the test
// writes on disk (a config and a trainer state each: the picker reads no weights). The column
// limit is four for generation and inversion and two for retrieval, and a full tab disables its
// buttons; a model already shown is refused with a message naming it (a run folder and its latest
// checkpoint folder are the same column; two checkpoints of a run are not; every checkpoint of a
// run has the same untrained twin); "Add run" lists each run's latest checkpoint, a submenu with
// every step-N checkpoint, and the untrained twins only where the tab takes them; the main
// window's one resolver turns "run name", a folder and "untrained:X" into the same columns for all
// three tabs.
#include <QtTest/QtTest>

#include <QAction>
#include <QMenu>
#include <QPushButton>
#include <QToolButton>

#include <cstdio>

#include <nlohmann/json.hpp>

#include "app/gui/common/checkpoint_picker.h"
#include "app/gui/generation/generation_panel.h"
#include "app/gui/inversion/inversion_panel.h"
#include "app/gui/retrieval/retrieval_panel.h"
#include "app/gui/shell/main_window.h"
#include "tests/training_fixture.h"
#include "widgets/generation/generation_column_view.h"
#include "widgets/retrieval/retrieval_results_view.h"

using namespace mixerlab;
namespace fs = std::filesystem;

namespace {

QString q(const fs::path& p) { return QString::fromStdString(p.string()); }

fs::path stepFolder(const fs::path& run_dir, int64_t step) {
  char name[32];
  std::snprintf(name, sizeof name, "step-%08lld", static_cast<long long>(step));
  return run_dir / "checkpoints" / name;
}

// A checkpoint as the picker reads it: config.json (arch, depth) and trainer_state.json (what
// makes a step folder complete), and latest.json naming the run's newest.
void writeCheckpoint(const fs::path& run_dir, int64_t step, const std::string& arch, int layers) {
  const fs::path dir = stepFolder(run_dir, step);
  testing::writeText(dir / "trainer_state.json", nlohmann::json{{"step", step}}.dump());
  testing::writeText(dir / "config.json", nlohmann::json{{"model", {{"arch", arch}, {"n_layers", layers}}}}.dump());
  testing::writeText(run_dir / "checkpoints" / "latest.json",
                     nlohmann::json{{"checkpoint", dir.filename().string()}, {"step", step}}.dump());
}

// The enabled actions' texts of a menu, section headings and greyed-out entries left out.
QStringList enabledTexts(const QMenu* menu) {
  QStringList texts;
  for (const QAction* a : menu->actions()) {
    if (!a->isSeparator() && a->isEnabled() && a->menu() == nullptr) texts << a->text();
  }
  return texts;
}

QAction* actionNamed(const QMenu* menu, const QString& text) {
  for (QAction* a : menu->actions()) {
    if (a->text() == text) return a;
  }
  return nullptr;
}

}  // namespace

class TestCheckpointPicker : public QObject {
  Q_OBJECT
  fs::path dir_, project_file_, runs_, mixer_, llama_;

  // The "Any checkpoint" submenu of `run`, filled as when it opens.
  static QMenu* stepsMenu(gui::CheckpointPicker* picker, const QString& run) {
    picker->fillRunMenu();
    auto* steps = picker->runMenu()->findChild<QMenu*>("checkpoints_of_" + run);
    if (steps != nullptr) Q_EMIT steps->aboutToShow();
    return steps;
  }

 private Q_SLOTS:
  void initTestCase() {
    dir_ = testing::makeScratchDir("checkpoint-picker");
    project_file_ = testing::writeTinyProject(dir_);  // runs "mixer" and "llama"
    runs_ = dir_ / "runs";
    mixer_ = runs_ / "mixer";
    llama_ = runs_ / "llama";
    for (const int64_t step : {4, 8, 12}) {
      writeCheckpoint(mixer_, step, "masked_mixer", 2);
      writeCheckpoint(llama_, step, "llama", 3);
    }
    fs::create_directories(runs_ / "fresh");  // a run folder without a checkpoint yet
  }

  // Generation: four columns, a fifth is refused and the full tab disables its buttons; removing
  // a column makes room again.
  void generationTakesFourColumns() {
    gui::GenerationPanel panel;
    panel.setRunsDirectory(q(runs_));
    gui::CheckpointPicker* picker = panel.checkpointPicker();
    QCOMPARE(picker->options().max_columns, 4);
    for (const fs::path& checkpoint :
         {stepFolder(mixer_, 4), stepFolder(mixer_, 8), stepFolder(mixer_, 12), stepFolder(llama_, 12)}) {
      QCOMPARE(panel.addCheckpoint(q(checkpoint)), QString());
      QCOMPARE(picker->addRunButton()->isEnabled(), panel.columnCount() < 4);
    }
    QCOMPARE(panel.columnCount(), 4);
    QVERIFY(!picker->addFolderButton()->isEnabled());
    const QString full = panel.addCheckpoint(q(stepFolder(llama_, 8)));
    QVERIFY2(full.contains("at most 4 columns"), qPrintable(full));
    QCOMPARE(panel.columnCount(), 4);
    panel.removeColumn(0);
    QVERIFY(picker->addRunButton()->isEnabled() && picker->addFolderButton()->isEnabled());
    QCOMPARE(picker->add({q(stepFolder(llama_, 8)), false}), QString());
    QCOMPARE(panel.columnCount(), 4);
    QCOMPARE(panel.column(3)->title(), QString("llama \u00b7 step 8"));
  }

  // Retrieval: two columns, the third refused (before the entry is even read).
  void retrievalTakesTwoColumns() {
    gui::RetrievalPanel panel;
    panel.setRunsDirectory(q(runs_));
    QCOMPARE(panel.checkpointPicker()->options().max_columns, 2);
    QCOMPARE(panel.addModel(q(mixer_)), QString());
    QCOMPARE(panel.addModel(q(mixer_), true), QString());
    QCOMPARE(panel.columnCount(), 2);
    QVERIFY(panel.column(1)->title().startsWith("untrained mixer"));
    QVERIFY(!panel.checkpointPicker()->addRunButton()->isEnabled());
    const QString full = panel.addModel(q(llama_));
    QVERIFY2(full.contains("at most 2"), qPrintable(full));
    QVERIFY2(panel.addModel(q(dir_ / "no-such-run")).contains("at most 2"), "the limit comes first");
    QCOMPARE(panel.columnCount(), 2);
  }

  // Inversion: a model already listed is refused, named in the message; another checkpoint of the
  // same run is a new model; the untrained twin is one per run, whichever checkpoint it comes from.
  void duplicatesAreRefused() {
    gui::InversionPanel panel;
    panel.setRunsDirectory(q(runs_));
    QCOMPARE(panel.checkpointPicker()->options().max_columns, 4);
    QCOMPARE(panel.addModel(q(mixer_)), QString());  // its latest: step 12
    const QString same = panel.addModel(q(stepFolder(mixer_, 12)));
    QVERIFY2(same.contains("mixer \u00b7 step 12") && same.contains("already"), qPrintable(same));
    QCOMPARE(panel.statusText(), same);
    QCOMPARE(panel.addModel(q(stepFolder(mixer_, 8))), QString());
    QCOMPARE(panel.addModel(q(mixer_), true), QString());
    const QString twin = panel.addModel(q(stepFolder(mixer_, 4)), true);
    QVERIFY2(twin.contains("mixer \u00b7 untrained") && twin.contains("already"), qPrintable(twin));
    QVERIFY(!panel.addUntrainedTwin(0).isEmpty());
    QCOMPARE(panel.modelCount(), 3);
    QCOMPARE(panel.modelLabel(2), QString("mixer \u00b7 untrained"));

    gui::GenerationPanel generation;
    QCOMPARE(generation.addCheckpoint(q(llama_)), QString());
    QVERIFY(generation.addCheckpoint(q(llama_ / "checkpoints")).contains("already"));
    QCOMPARE(generation.columnCount(), 1);
  }

  // "Add run": the latest checkpoint of every run that has one, a submenu per run with each
  // step-N checkpoint (choosing one adds exactly that checkpoint), untrained twins only where the
  // tab takes them, and the models already shown greyed out.
  void addRunOffersAnyCheckpointOfARun() {
    gui::GenerationPanel panel;
    panel.setRunsDirectory(q(runs_));
    gui::CheckpointPicker* picker = panel.checkpointPicker();
    picker->fillRunMenu();
    QCOMPARE(enabledTexts(picker->runMenu()),
             QStringList({"llama \u00b7 step 12  (llama)", "mixer \u00b7 step 12  (masked_mixer)"}));
    QVERIFY(picker->runMenu()->findChild<QMenu*>("checkpoints_of_fresh") == nullptr);
    QMenu* steps = stepsMenu(picker, "mixer");
    QVERIFY(steps != nullptr);
    QCOMPARE(enabledTexts(steps), QStringList({"step 4", "step 8", "step 12 (latest)"}));
    QAction* step4 = actionNamed(steps, "step 4");
    QVERIFY(step4 != nullptr);
    step4->trigger();
    QCOMPARE(panel.columnCount(), 1);
    QCOMPARE(panel.column(0)->title(), QString("mixer \u00b7 step 4"));
    QVERIFY(panel.addCheckpoint(q(stepFolder(mixer_, 4))).contains("already"));  // that very checkpoint
    steps = stepsMenu(picker, "mixer");
    QCOMPARE(enabledTexts(steps), QStringList({"step 8", "step 12 (latest)"}));
    QAction* shown = actionNamed(steps, "step 4  (already shown)");
    QVERIFY(shown != nullptr && !shown->isEnabled());

    gui::InversionPanel inversion;
    inversion.setRunsDirectory(q(runs_));
    inversion.checkpointPicker()->fillRunMenu();
    QMenu* menu = inversion.checkpointPicker()->runMenu();
    QVERIFY(enabledTexts(menu).contains("mixer \u00b7 untrained  (masked_mixer)"));
    QAction* twin = actionNamed(menu, "llama \u00b7 untrained  (llama)");
    QVERIFY(twin != nullptr);
    twin->trigger();
    QCOMPARE(inversion.modelLabel(0), QString("llama \u00b7 untrained"));
    QVERIFY(!enabledTexts(picker->runMenu()).join('\n').contains("untrained"));  // Generate takes none

    gui::GenerationPanel no_project;
    no_project.checkpointPicker()->fillRunMenu();
    QCOMPARE(no_project.checkpointPicker()->runMenu()->actions().size(), 1);
    QVERIFY(!no_project.checkpointPicker()->runMenu()->actions().at(0)->isEnabled());
  }

  // The main window's resolver: a run name is its run folder, "untrained:" asks for the twin, a
  // folder stays a folder; each tab takes the entries through its picker.
  void entriesResolveToColumns() {
    gui::MainWindow window;
    QCOMPARE(window.openProject(q(project_file_)), QString());
    const gui::ColumnRequest run = window.resolveColumnEntry("mixer");
    QCOMPARE(run.path, q(runs_) + "/mixer");
    QVERIFY(!run.untrained);
    const gui::ColumnRequest twin = window.resolveColumnEntry("untrained:llama");
    QCOMPARE(twin.path, q(runs_) + "/llama");
    QVERIFY(twin.untrained);
    const gui::ColumnRequest folder = window.resolveColumnEntry("untrained:" + q(stepFolder(mixer_, 4)));
    QCOMPARE(folder.path, q(stepFolder(mixer_, 4)));
    QVERIFY(folder.untrained);
    QCOMPARE(window.resolveColumnEntry("fresh").path, q(runs_) + "/fresh");  // a run folder not in the project
    QCOMPARE(window.resolveColumnEntry("elsewhere").path, QString("elsewhere"));

    gui::CheckpointColumn column;
    QCOMPARE(window.inversionPanel()->checkpointPicker()->choose(twin, &column), QString());
    QVERIFY(column.untrained && column.source().untrained);
    QCOMPARE(q(column.source().path), q(stepFolder(llama_, 12).lexically_normal()));
    QCOMPARE(column.depth, 3);

    QCOMPARE(window.showInspection({"mixer", "untrained:mixer", q(stepFolder(llama_, 4))}), QString());
    QCOMPARE(window.inversionPanel()->modelLabel(1), QString("mixer \u00b7 untrained"));
    QCOMPARE(window.inversionPanel()->modelLabel(2), QString("llama \u00b7 step 4"));
    QVERIFY(window.showInspection({"untrained:" + q(stepFolder(mixer_, 8))}).contains("already"));

    const QString refused = window.showGeneration({"untrained:mixer"});
    QVERIFY2(refused.startsWith("untrained:mixer: ") && refused.contains("trained checkpoints only"),
             qPrintable(refused));
    QCOMPARE(window.generationPanel()->columnCount(), 0);
    QCOMPARE(window.showGeneration({"mixer", "llama"}), QString());
    QCOMPARE(window.generationPanel()->column(1)->title(), QString("llama \u00b7 step 12"));

    QCOMPARE(window.showRetrieval({"untrained:llama"}), QString());
    QVERIFY(window.retrievalPanel()->column(0)->title().startsWith("untrained llama \u00b7 step 12"));
    QVERIFY(window.showRetrieval({"llama", "mixer"}).contains("at most 2"));
    QCOMPARE(window.retrievalPanel()->columnCount(), 2);
  }
};

QTEST_MAIN(TestCheckpointPicker)
#include "test_checkpoint_picker.moc"
