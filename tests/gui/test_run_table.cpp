// Widget tests of the runs table: numeric sorting, the filter line (text,
// key=value, tag:), hyperparameter columns from the project's settings (run.json's once it runs),
// progress and ETA, tags and notes edited in the table and kept in run_notes.json across windows,
// archive and delete refused while the run's lock is held, and the checkpoint "fork from here" picks.
#include <QtTest/QtTest>

#include <QApplication>
#include <QComboBox>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QTableView>
#include <QTimer>

#include <fstream>
#include <memory>

#include <nlohmann/json.hpp>

#include "app/gui/common/fork_point.h"
#include "app/gui/project/project_document.h"
#include "app/gui/project/run_setup_dialog.h"
#include "app/gui/runs/run_annotations.h"
#include "app/gui/runs/run_list_model.h"
#include "app/gui/runs/run_table_filter.h"
#include "app/gui/shell/main_window.h"
#include "core/runs/run_lock.h"
#include "tests/test_support.h"
#include "tests/training_fixture.h"
#include "widgets/forms/config_form.h"
#include "widgets/plots/loss_plot_widget.h"
#include "widgets/tables/frozen_column_table_view.h"

using namespace mixerlab;
using gui::RunListModel;
namespace fs = std::filesystem;

namespace {
gui::RunSnapshot snapshot(const QString& run, RunState state, qint64 step, double wall_s) {
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
    runs.applySnapshot(snapshot("mixer", RunState::Finished, 100, 10));
    runs.applySnapshot(snapshot("llama", RunState::Running, 9, 1));
    runs.applySnapshot(snapshot("gpt", RunState::Stopped, 10, 2));
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

  // The plot draws the runs the table shows; a filter that hides a row hides its curve,
  // clearing the filter brings it back.
  void thePlotFollowsTheTableFilter() {
    gui::MainWindow window;
    for (const char* name : {"mixer-a", "llama-b"}) {
      gui::RunSnapshot s = snapshot(name, RunState::Running, 10, 1);
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
    gui::RunSnapshot more = snapshot("mixer-a", RunState::Running, 20, 2);
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
    runs.applySnapshot(snapshot("mixer", RunState::Running, 25, 50));
    QCOMPARE(runs.index(0, RunListModel::Progress).data().toString(), QString("25%"));
    QCOMPARE(runs.index(0, RunListModel::Eta).data().toString(), QString("2:30"));  // 50 s for 25%: 150 s left
    // Once the run has written run.json, what it actually trains with is shown.
    gui::RunSnapshot with_config = snapshot("mixer", RunState::Finished, 100, 200);
    with_config.run_config_json = R"({"model": {"d_model": 384}, "train": {"max_steps": 100}})";
    runs.applySnapshot(with_config);
    QCOMPARE(runs.index(0, RunListModel::ColumnCount).data().toString(), QString("384"));
    QCOMPARE(runs.index(0, RunListModel::Progress).data().toString(), QString("100%"));
    QCOMPARE(runs.index(0, RunListModel::Eta).data().toString(), QString());
  }

  // A hyperparameter column is written in one format: learning rates 5e-04 and 2e-03
  // (not 5e-04 beside 0.002), dropouts 0.10 and 0.05, widths as integers, text as text.
  void numberColumnsUseOneFormat() {
    RunListModel runs;
    runs.setProjectRuns({{"a", "masked_mixer"}, {"b", "masked_mixer"}, {"c", "llama"}});
    runs.setProjectSettings("a", {{"train.learning_rate", 5e-4}, {"model.d_model", 256}, {"model.dropout", 0.1}});
    runs.setProjectSettings("b", {{"train.learning_rate", 0.002}, {"model.d_model", 512}, {"model.dropout", 0.05}});
    runs.setProjectSettings("c", {{"train.learning_rate", 2.5e-4}, {"model.d_model", 64}, {"model.dropout", 0}});
    runs.setHyperparameterColumns({"train.learning_rate", "model.d_model", "model.dropout", "model.arch"});
    auto cell = [&](int row, int column) {
      return runs.index(row, RunListModel::ColumnCount + column).data().toString();
    };
    QCOMPARE(QStringList({cell(0, 0), cell(1, 0), cell(2, 0)}), QStringList({"5.0e-04", "2.0e-03", "2.5e-04"}));
    QCOMPARE(QStringList({cell(0, 1), cell(1, 1), cell(2, 1)}), QStringList({"256", "512", "64"}));
    QCOMPARE(QStringList({cell(0, 2), cell(1, 2), cell(2, 2)}), QStringList({"0.10", "0.05", "0"}));
    runs.setProjectSettings("c", {{"train.learning_rate", 1e-3}, {"model.d_model", 64}, {"model.dropout", 0}});
    QCOMPARE(QStringList({cell(0, 0), cell(1, 0), cell(2, 0)}), QStringList({"5e-04", "2e-03", "1e-03"}));
    runs.setProjectSettings("a", {{"train.learning_rate", 0.25}});
    runs.setProjectSettings("b", {{"train.learning_rate", 0.5}});
    QCOMPARE(QStringList({cell(0, 0), cell(1, 0), cell(2, 0)}), QStringList({"0.250", "0.500", "0.001"}));
  }

  // The run column stays in view while many hyperparameter columns scroll sideways; it is
  // the same model and selection, and its check box still overlays the run.
  void runColumnStaysWhileColumnsScroll() {
    RunListModel runs;
    runs.setProjectRuns({{"mixer", "masked_mixer"}, {"llama", "llama"}});
    QStringList keys;
    QVariantMap settings;
    for (int i = 0; i < 12; ++i) {
      keys << QString("model.option_%1").arg(i);
      settings[keys.back()] = 1000 + i;
    }
    runs.setProjectSettings("mixer", settings);
    runs.setHyperparameterColumns(keys);
    widgets::FrozenColumnTableView view;
    view.setModel(&runs);
    view.verticalHeader()->setVisible(false);  // as the main window's table
    view.resize(420, 200);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.horizontalScrollBar()->setValue(view.horizontalScrollBar()->maximum());
    QVERIFY(view.horizontalScrollBar()->maximum() > 0);
    QVERIFY2(view.visualRect(runs.index(0, RunListModel::Run)).right() < 0, "the table did not scroll");
    QTableView* frozen = view.frozenView();
    QVERIFY(frozen->isVisible());
    QCOMPARE(frozen->geometry().left(), view.frameWidth());
    QCOMPARE(frozen->columnWidth(0), view.columnWidth(0));
    QCOMPARE(frozen->visualRect(runs.index(1, RunListModel::Run)).top(), view.visualRect(runs.index(1, 0)).top());
    QVERIFY(frozen->isColumnHidden(RunListModel::ColumnCount) && !frozen->isColumnHidden(RunListModel::Run));
    QCOMPARE(frozen->selectionModel(), view.selectionModel());
    QCOMPARE(frozen->indexAt(frozen->visualRect(runs.index(1, 0)).center()).data().toString(), QString("llama"));
    view.selectRow(1);
    QVERIFY(frozen->selectionModel()->isRowSelected(1, {}));
    runs.setHyperparameterColumns(keys + QStringList{"train.learning_rate"});  // a new column stays out of it
    QVERIFY(frozen->isColumnHidden(RunListModel::ColumnCount + 12));
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
    QVERIFY(!window.runModel()->state("mixer"));                         // back to "not started"
    fs::create_directories(run_dir);
    QCOMPARE(window.archiveRun("mixer"), QString());
    QVERIFY(fs::exists(project_dir / "archive" / "mixer-2"));  // a second archive never overwrites the first
    fs::create_directories(run_dir / "checkpoints");
    QCOMPARE(window.deleteRun("mixer"), QString());
    QVERIFY(!fs::exists(run_dir));
    QVERIFY(window.deleteRun("mixer").contains("no run folder"));
  }

  // A fork is the run form prefilled from the parent under a new name, with the checkpoint
  // to start from; training settings may change, the model may not; the fork joins the project
  // under its own name (so its run.json, log and table row carry that name).
  void forkIsTheRunFormPrefilledFromTheParent() {
    const QString project = demoProjectCopy("fork-form");
    gui::MainWindow window;
    QCOMPARE(window.openProject(project), QString());
    const fs::path mixer_dir = fs::path(window.runsDirectory().toStdString()) / "mixer";
    for (const char* step : {"step-00000020", "step-00000040"}) {
      fs::create_directories(mixer_dir / "checkpoints" / step);
      testing::writeText(mixer_dir / "checkpoints" / step / "trainer_state.json", "{}");
    }
    const double parent_lr =
        window.project()->resolvedRun("mixer").value("train").toObject().value("learning_rate").toDouble();
    QString seen;
    QTimer::singleShot(0, [&] {
      auto* dialog = qobject_cast<gui::RunSetupDialog*>(QApplication::activeModalWidget());
      QVERIFY(dialog);
      QCOMPARE(dialog->windowTitle(), QString("Fork mixer"));
      auto* checkpoints = dialog->findChild<QComboBox*>("fork-checkpoint");
      QCOMPARE(checkpoints->count(), 2);
      QVERIFY(dialog->forkCheckpoint().endsWith("step-00000040"));  // the one the plot point asked for
      QCOMPARE(dialog->run().value("name").toString(), QString("mixer-from-40"));
      QVERIFY(!dialog->sweepButton()->isVisible());
      auto type = [&](const char* key, const QString& text) {  // as a user edits a field
        auto* field = dialog->findChild<QLineEdit*>(key);
        QVERIFY2(field, key);
        field->selectAll();
        QTest::keyClicks(field, text);
        QTest::keyClick(field, Qt::Key_Tab);
      };
      const QString parent_width = dialog->findChild<QLineEdit*>("model.d_model")->text();
      type("model.d_model", "96");  // the model: refused, on that field
      const QString why = dialog->errors().value("model.d_model");
      type("model.d_model", parent_width);
      type("train.learning_rate", QString::number(parent_lr / 2));  // training: free
      type("name", "mixer-half-lr");
      if (!why.contains("a fork keeps mixer's model") || !dialog->isValid()) {
        dialog->reject();
        QFAIL(qPrintable("model change: \"" + why + "\"; now: " + QStringList(dialog->errors().values()).join("; ")));
      }
      checkpoints->setCurrentIndex(0);
      seen = dialog->forkCheckpoint();
      dialog->okButton()->click();
    });
    const QString checkpoint = QString::fromStdString((mixer_dir / "checkpoints" / "step-00000040").string());
    const QString started = window.forkInForm("mixer", checkpoint, "mixer-from-40");
    QVERIFY2(started != "cancelled", qPrintable(started));  // it may not start: the checkpoint is a stand-in
    QVERIFY(seen.endsWith("step-00000020"));
    QVERIFY(window.project()->runNames().contains("mixer-half-lr"));
    const QJsonObject fork = window.project()->resolvedRun("mixer-half-lr");
    QCOMPARE(fork.value("train").toObject().value("learning_rate").toDouble(), parent_lr / 2);
    QCOMPARE(fork.value("model").toObject().value("d_model"),
             window.project()->resolvedRun("mixer").value("model").toObject().value("d_model"));
    QVERIFY(window.runModel()->runNames().contains("mixer-half-lr"));
    QString error;  // Run > Fork names no checkpoint: the latest is offered first
    std::unique_ptr<gui::RunSetupDialog> latest(window.makeForkForm("mixer", {}, "mixer-fork", &error));
    QVERIFY2(latest, qPrintable(error));
    QVERIFY(latest->forkCheckpoint().endsWith("step-00000040"));
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
