// Widget tests of the runs table (issue 14, "Run table"): numeric sorting, the filter line (text,
// key=value, tag:), hyperparameter columns from the project's settings (run.json's once it runs),
// progress and ETA, tags and notes edited in the table and kept in run_notes.json across windows,
// archive and delete refused while the run's lock is held, and the checkpoint "fork from here" picks.
#include <QtTest/QtTest>

#include <QLineEdit>
#include <QTableView>

#include <fstream>

#include <nlohmann/json.hpp>

#include "app/gui/runs/fork_point.h"
#include "app/gui/runs/run_annotations.h"
#include "app/gui/runs/run_list_model.h"
#include "app/gui/runs/run_table_filter.h"
#include "app/gui/shell/main_window.h"
#include "core/runs/run_lock.h"
#include "tests/test_support.h"
#include "tests/training_fixture.h"
#include "widgets/loss_plot_widget.h"

using namespace mixerlab;
using gui::RunListModel;
namespace fs = std::filesystem;

namespace {
gui::RunSnapshot snapshot(const QString& run, const QString& state, qint64 step, double wall_s) {
  gui::RunSnapshot s;
  s.run = run;
  s.state = state;
  s.step = step;
  s.tokens = step * 512;
  s.wall_s = wall_s;
  s.tokens_per_s = 1000;
  return s;
}

QStringList shownRuns(const QAbstractItemModel& view_model) {
  QStringList runs;
  for (int r = 0; r < view_model.rowCount(); ++r) runs << view_model.index(r, RunListModel::Run).data().toString();
  return runs;
}

QString demoProjectCopy(const std::string& tag) {
  return QString::fromStdString(testing::writeDemoProjectCopy(testing::makeScratchDir(tag)).string());
}
}  // namespace

class TestRunTable : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void sortsNumbersAsNumbersAndFilters() {
    RunListModel runs;
    runs.setProjectRuns({{"mixer", "masked_mixer"}, {"llama", "llama"}, {"gpt", "gpt"}});
    runs.applySnapshot(snapshot("mixer", "finished", 100, 10));
    runs.applySnapshot(snapshot("llama", "running", 9, 1));
    runs.applySnapshot(snapshot("gpt", "stopped", 10, 2));
    runs.setProjectSettings("mixer", {{"model.d_model", 256}, {"train.learning_rate", 0.001}});
    runs.setProjectSettings("llama", {{"model.d_model", 512}, {"train.learning_rate", 0.001}});
    runs.setProjectSettings("gpt", {{"model.d_model", 256}, {"train.learning_rate", 0.0003}});
    runs.setAnnotation("gpt", {"baseline"}, "the reference");
    gui::RunTableFilter table(&runs);
    QCOMPARE(shownRuns(table), (QStringList{"mixer", "llama", "gpt"}));  // the project's order until sorted
    table.sort(RunListModel::Step, Qt::AscendingOrder);
    QCOMPARE(shownRuns(table), (QStringList{"llama", "gpt", "mixer"}));  // 9 < 10 < 100, not "10" < "100" < "9"
    table.sort(-1);
    table.setFilterText("LLA");
    QCOMPARE(shownRuns(table), QStringList{"llama"});
    table.setFilterText("d_model=256");
    QCOMPARE(shownRuns(table), (QStringList{"mixer", "gpt"}));
    table.setFilterText("d_model=256 learning_rate=3e-4");  // terms AND; numbers compare as numbers
    QCOMPARE(shownRuns(table), QStringList{"gpt"});
    table.setFilterText("tag:baseline");
    QCOMPARE(shownRuns(table), QStringList{"gpt"});
    table.setFilterText("reference");  // notes are searched too
    QCOMPARE(shownRuns(table), QStringList{"gpt"});
    table.setFilterText("");
    QCOMPARE(table.rowCount(), 3);
  }

  // Issue #30 D6: the plot draws the runs the table shows; a filter that hides a row hides its curve,
  // clearing the filter brings it back.
  void thePlotFollowsTheTableFilter() {
    gui::MainWindow window;
    for (const char* name : {"mixer-a", "llama-b"}) {
      gui::RunSnapshot s = snapshot(name, "running", 10, 1);
      s.new_train = {{0, 0, 0, 5.0}, {10, 5120, 1, 4.0}};
      window.runModel()->applySnapshot(s);
    }
    auto* plot = window.lossPlot();
    plot->replotNow();
    QVERIFY(plot->drawnPointCount("mixer-a", false) > 0);
    QVERIFY(plot->drawnPointCount("llama-b", false) > 0);
    window.findChild<QLineEdit*>("run-filter")->setText("llama");
    plot->replotNow();
    QCOMPARE(plot->drawnPointCount("mixer-a", false), 0);
    QVERIFY(plot->drawnPointCount("llama-b", false) > 0);
    // New points of a hidden run stay hidden.
    gui::RunSnapshot more = snapshot("mixer-a", "running", 20, 2);
    more.new_train = {{20, 10240, 2, 3.5}};
    window.runModel()->applySnapshot(more);
    plot->replotNow();
    QCOMPARE(plot->drawnPointCount("mixer-a", false), 0);
    window.findChild<QLineEdit*>("run-filter")->clear();
    plot->replotNow();
    QCOMPARE(plot->drawnPointCount("mixer-a", false), 3);
  }

  void hyperparameterColumnsProgressAndEta() {
    RunListModel runs;
    runs.setProjectRuns({{"mixer", "masked_mixer"}});
    runs.setProjectSettings("mixer", {{"model.d_model", 256}, {"train.max_steps", 100}});
    runs.setHyperparameterColumns({"model.d_model"});
    QCOMPARE(runs.columnCount(), int(RunListModel::ColumnCount) + 1);
    QCOMPARE(runs.headerData(RunListModel::ColumnCount, Qt::Horizontal).toString(), QString("d_model"));
    QCOMPARE(runs.index(0, RunListModel::ColumnCount).data().toString(), QString("256"));
    QVERIFY(runs.availableHyperparameters().contains("train.max_steps"));
    runs.applySnapshot(snapshot("mixer", "running", 25, 50));
    QCOMPARE(runs.index(0, RunListModel::Progress).data().toString(), QString("25%"));
    QCOMPARE(runs.index(0, RunListModel::Eta).data().toString(), QString("2:30"));  // 50 s for 25%: 150 s left
    // Once the run has written run.json, what it actually trains with is shown.
    gui::RunSnapshot with_config = snapshot("mixer", "finished", 100, 200);
    with_config.run_config_json = R"({"model": {"d_model": 384}, "train": {"max_steps": 100}})";
    runs.applySnapshot(with_config);
    QCOMPARE(runs.index(0, RunListModel::ColumnCount).data().toString(), QString("384"));
    QCOMPARE(runs.index(0, RunListModel::Progress).data().toString(), QString("100%"));
    QCOMPARE(runs.index(0, RunListModel::Eta).data().toString(), QString());
  }

  void tagsAndNotesAreEditedAndKept() {
    const QString project = demoProjectCopy("run-table-notes");
    {
      gui::MainWindow window;
      QCOMPARE(window.openProject(project), QString());
      RunListModel* runs = window.runModel();
      const int row = runs->rowOf("mixer");
      QVERIFY(row >= 0);
      QVERIFY(runs->flags(runs->index(row, RunListModel::Tags)) & Qt::ItemIsEditable);
      QVERIFY(!(runs->flags(runs->index(row, RunListModel::Step)) & Qt::ItemIsEditable));
      QVERIFY(runs->setData(runs->index(row, RunListModel::Tags), "baseline, small, baseline", Qt::EditRole));
      QVERIFY(runs->setData(runs->index(row, RunListModel::Notes), "k=1, the paper's setting", Qt::EditRole));
      QCOMPARE(runs->tags("mixer"), (QStringList{"baseline", "small"}));
    }
    const auto stored = gui::readRunAnnotations(QFileInfo(project).absolutePath());
    QCOMPARE(stored.value("mixer").tags, (QStringList{"baseline", "small"}));
    gui::MainWindow again;  // a restart: the tags come back and the filter finds them
    QCOMPARE(again.openProject(project), QString());
    QCOMPARE(again.runModel()->notes("mixer"), QString("k=1, the paper's setting"));
    again.runFilterEdit()->setText("tag:small");
    QCOMPARE(shownRuns(*again.runTable()->model()), QStringList{"mixer"});
  }

  void archiveAndDeleteAreRefusedWhileTraining() {
    const QString project = demoProjectCopy("run-table-archive");
    const fs::path project_dir = fs::path(project.toStdString()).parent_path();
    gui::MainWindow window;
    QCOMPARE(window.openProject(project), QString());
    const fs::path run_dir = fs::path(window.runsDirectory().toStdString()) / "mixer";
    fs::create_directories(run_dir / "checkpoints");
    testing::writeText(run_dir / "log.txt", "trained\n");
    {
      RunLock training(run_dir);  // what a training process holds
      const QString error = window.archiveRun("mixer");
      QVERIFY2(error.contains("is training") && error.contains("stop it first"), qPrintable(error));
      QVERIFY(window.deleteRun("mixer").contains("is training"));
      QVERIFY(fs::exists(run_dir / "log.txt"));
    }
    QCOMPARE(window.archiveRun("mixer"), QString());
    QVERIFY(!fs::exists(run_dir));
    QVERIFY(fs::exists(project_dir / "archive" / "mixer" / "log.txt"));  // the files are kept
    QCOMPARE(window.runModel()->state("mixer"), QString());              // back to "not started"
    fs::create_directories(run_dir);
    QCOMPARE(window.archiveRun("mixer"), QString());
    QVERIFY(fs::exists(project_dir / "archive" / "mixer-2"));  // a second archive never overwrites the first
    fs::create_directories(run_dir / "checkpoints");
    QCOMPARE(window.deleteRun("mixer"), QString());
    QVERIFY(!fs::exists(run_dir));
    QVERIFY(window.deleteRun("mixer").contains("no run folder"));
  }

  void forkFromHerePicksTheCheckpointAtOrBefore() {
    const fs::path run_dir = testing::makeScratchDir("fork-point") / "mixer";
    for (const char* step : {"step-00000020", "step-00000040", "step-00000060"}) {
      fs::create_directories(run_dir / "checkpoints" / step);
      testing::writeText(run_dir / "checkpoints" / step / "trainer_state.json", "{}");
    }
    fs::create_directories(run_dir / "checkpoints" / "step-00000050");  // incomplete: no trainer state
    const QString dir = QString::fromStdString(run_dir.string());
    QString error;
    QVERIFY(gui::checkpointAtOrBefore(dir, 55, &error).endsWith("step-00000040"));
    QVERIFY(gui::checkpointAtOrBefore(dir, 60, &error).endsWith("step-00000060"));
    QVERIFY(gui::checkpointAtOrBefore(dir, 19, &error).isEmpty());
    QVERIFY2(error.contains("no checkpoint at or before step 19"), qPrintable(error));
  }
};

QTEST_MAIN(TestRunTable)
#include "test_run_table.moc"
