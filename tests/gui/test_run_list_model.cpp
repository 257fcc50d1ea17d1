// Tests of the GUI's state owners (offscreen): RunListModel folds monitor snapshots into its row
// (formatted best eval loss, elapsed time, device) and toggles the plot overlay; ProjectDocument
// edits are validated by the core, written to the file, and undone/redone to the exact file text,
// while an invalid run is refused with the core's message and nothing is written; AppSettings keeps
// a bounded recent-projects list; the main window's Undo action undoes a project edit.
#include <QtTest/QtTest>

#include <QAction>
#include <QStandardPaths>
#include <QTableView>
#include <QUndoStack>

#include <cmath>
#include <fstream>

#include <nlohmann/json.hpp>

#include "app/gui/common/app_settings.h"
#include "app/gui/project/project_document.h"
#include "app/gui/runs/run_list_model.h"
#include "app/gui/shell/main_window.h"
#include "core/config/project_config.h"
#include "tests/test_support.h"
#include "tests/training_fixture.h"

using namespace mixerlab;
using gui::RunListModel;
namespace fs = std::filesystem;

namespace {
QString cell(const RunListModel& model, int row, int column, int role = Qt::DisplayRole) {
  return model.data(model.index(row, column), role).toString();
}

QByteArray fileBytes(const QString& path) {
  QFile file(path);
  return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// A copy of the demo project with absolute corpus paths, in a fresh scratch folder.
QString demoProjectCopy(const std::string& tag) {
  // Indented by 4, not the GUI's indentation: undo must restore it.
  const fs::path file = testing::writeDemoProjectCopy(testing::makeScratchDir(tag), nlohmann::json::object(), 4);
  return QString::fromStdString(file.string());
}

gui::RunSnapshot runningLlama() {
  gui::RunSnapshot s;
  s.run = "llama";
  s.state = RunState::Running;
  s.arch = "llama";
  s.device = "cpu (2 threads, BLAS /usr/lib/libopenblas.so)";
  s.step = 40;
  s.tokens = 20480;
  s.wall_s = 125.7;
  s.tokens_per_s = 1234.4;
  s.best_eval_loss = 3.14159;
  s.run_config_json = R"({"name": "llama", "model": {"arch": "llama"}})";
  s.new_train = {{1, 512, 0.5, 5.0}, {2, 1024, 1.0, 4.5}};
  s.new_eval = {{2, 1024, 1.0, 4.8}};
  return s;
}
}  // namespace

class TestRunListModel : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() {
    // Keep AppSettings away from the user's real settings.
    qputenv("XDG_CONFIG_HOME", QByteArray::fromStdString(testing::makeScratchDir("settings").string()));
    QStandardPaths::setTestModeEnabled(true);
  }

  void snapshotUpdatesItsRow() {
    RunListModel model;
    model.setProjectRuns({{"mixer", "masked_mixer"}, {"llama", "llama"}});
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(cell(model, 1, RunListModel::Status), QString("not started"));
    QCOMPARE(cell(model, 1, RunListModel::Step), QString());
    QCOMPARE(cell(model, 1, RunListModel::Elapsed), QString());
    QVERIFY(!model.state("llama"));
    QVERIFY(model.series("llama") == nullptr);
    QSignalSpy series_changed(&model, &RunListModel::seriesChanged);
    QSignalSpy points_appended(&model, &RunListModel::pointsAppended);
    QSignalSpy data_changed(&model, &QAbstractItemModel::dataChanged);

    model.applySnapshot(runningLlama());
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(data_changed.count(), 1);
    QVERIFY(model.state("llama") == RunState::Running);
    QCOMPARE(cell(model, 1, RunListModel::Run), QString("llama"));
    QCOMPARE(cell(model, 1, RunListModel::Status), QString("running"));
    QCOMPARE(cell(model, 1, RunListModel::Step), QString("40"));
    QCOMPARE(cell(model, 1, RunListModel::Tokens), QString("20480"));
    QCOMPARE(cell(model, 1, RunListModel::BestEval), QString("3.1416"));
    QCOMPARE(cell(model, 1, RunListModel::TokensPerS), QString("1234"));
    QCOMPARE(cell(model, 1, RunListModel::Elapsed), QString("2:06"));  // 125.7 s, rounded by formatDuration
    QCOMPARE(cell(model, 1, RunListModel::Device), QString("cpu (2 threads)"));
    QCOMPARE(cell(model, 1, RunListModel::Device, Qt::ToolTipRole),
             QString("cpu (2 threads, BLAS /usr/lib/libopenblas.so)"));
    // New points are appended, not a whole series to redraw: the signal carries just what arrived.
    QCOMPARE(series_changed.count(), 0);
    QCOMPARE(points_appended.count(), 1);
    const auto appended = points_appended.at(0).at(0).value<widgets::LossSeries>();
    QCOMPARE(appended.run, QString("llama"));
    QCOMPARE(appended.train.size(), 2);
    QCOMPARE(appended.eval.size(), 1);
    QCOMPARE(model.series("llama")->train.size(), 2);
    QCOMPARE(model.series("llama")->eval.size(), 1);
    QCOMPARE(model.runConfigJson("llama"), runningLlama().run_config_json);
    QCOMPARE(cell(model, 0, RunListModel::Status), QString("not started"));  // the other row is untouched

    // A later snapshot without points: status and reason change, the series does not.
    gui::RunSnapshot failed = runningLlama();
    failed.state = RunState::Failed;
    failed.reason = "out of memory";
    failed.best_eval_loss = -1;
    failed.tokens_per_s = 0;
    failed.wall_s = 3725;
    failed.new_train.clear();
    failed.new_eval.clear();
    model.applySnapshot(failed);
    QCOMPARE(cell(model, 1, RunListModel::Status), QString("failed: out of memory"));
    QCOMPARE(cell(model, 1, RunListModel::Status, Qt::ToolTipRole), QString("out of memory"));
    QCOMPARE(cell(model, 1, RunListModel::BestEval), QString());
    QCOMPARE(cell(model, 1, RunListModel::TokensPerS), QString());
    QCOMPARE(cell(model, 1, RunListModel::Elapsed), QString("1:02:05"));
    QVERIFY(!model.diverged("llama"));
    QVERIFY(!model.data(model.index(1, RunListModel::Status), Qt::BackgroundRole).isValid());
    // A divergence warning while it trains (and the stop train.stop_on_divergence makes) is marked.
    gui::RunSnapshot diverging = failed;
    diverging.state = RunState::Running;
    diverging.reason =
        "warning: train loss 3.5e9 at step 40 is far above ln(vocab) = 7.6 (guessing uniformly): the "
        "run has probably diverged; lower train.learning_rate";
    model.applySnapshot(diverging);
    QVERIFY(model.diverged("llama"));
    QCOMPARE(model.data(model.index(1, RunListModel::Status), Qt::BackgroundRole).value<QColor>(),
             QColor(255, 214, 170));
    QVERIFY(!model.data(model.index(1, RunListModel::Step), Qt::BackgroundRole).isValid());
    diverging.state = RunState::Failed;
    diverging.reason = "diverged: " + diverging.reason.mid(9) + " (train.stop_on_divergence)";
    model.applySnapshot(diverging);
    QVERIFY(model.diverged("llama"));
    model.applySnapshot(failed);
    QVERIFY(!model.diverged("llama"));
    QCOMPARE(series_changed.count(), 0);
    QCOMPARE(points_appended.count(), 1);
    QCOMPARE(model.series("llama")->train.size(), 2);

    // A resume resets the series; a run directory the project does not name gets its own row.
    gui::RunSnapshot resumed = runningLlama();
    resumed.reset = true;
    resumed.new_train = {{1, 512, 0.5, 4.9}};
    resumed.new_eval.clear();
    model.applySnapshot(resumed);
    QCOMPARE(series_changed.count(), 1);  // the series restarts: redrawn whole
    QCOMPARE(series_changed.at(0).at(0).toString(), QString("llama"));
    QCOMPARE(points_appended.count(), 1);
    QCOMPARE(model.series("llama")->train.size(), 1);
    gui::RunSnapshot fork = runningLlama();
    fork.run = "llama-fork";
    model.applySnapshot(fork);
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(model.runAt(2), QString("llama-fork"));
    QCOMPARE(cell(model, 2, RunListModel::Architecture), QString("llama"));
  }

  void overlayToggling() {
    RunListModel model;
    model.setProjectRuns({{"mixer", "masked_mixer"}, {"llama", "llama"}});
    gui::RunSnapshot mixer = runningLlama();
    mixer.run = "mixer";
    model.applySnapshot(mixer);
    model.applySnapshot(runningLlama());
    QCOMPARE(model.overlaidCurves().size(), 2);
    QCOMPARE(model.overlaidCurves().at(0).run, QString("llama"));  // by run name
    QCOMPARE(model.data(model.index(0, RunListModel::Run), Qt::CheckStateRole).toInt(), int(Qt::Checked));
    QVERIFY(model.flags(model.index(0, RunListModel::Run)) & Qt::ItemIsUserCheckable);
    QVERIFY(!(model.flags(model.index(0, RunListModel::Step)) & Qt::ItemIsUserCheckable));
    QSignalSpy overlay(&model, &RunListModel::overlayChanged);

    QVERIFY(model.setData(model.index(0, RunListModel::Run), Qt::Unchecked, Qt::CheckStateRole));
    QCOMPARE(overlay.count(), 1);
    QCOMPARE(overlay.at(0).at(0).toString(), QString("mixer"));
    QCOMPARE(overlay.at(0).at(1).toBool(), false);
    QVERIFY(!model.isOverlaid("mixer"));
    QCOMPARE(model.data(model.index(0, RunListModel::Run), Qt::CheckStateRole).toInt(), int(Qt::Unchecked));
    const auto curves = model.overlaidCurves();
    QCOMPARE(curves.size(), 1);
    QCOMPARE(curves.at(0).run, QString("llama"));
    // train and eval points in step order, NaN where a point has no such loss
    QCOMPARE(curves.at(0).points.size(), 3);
    QCOMPARE(curves.at(0).points.at(0).step, 1.0);
    QVERIFY(std::isnan(curves.at(0).points.at(0).eval_loss));
    QCOMPARE(curves.at(0).config.value("name").toString(), QString("llama"));
    QVERIFY(std::isnan(curves.at(0).other_cpu_cores));  // not logged: unknown, not "alone"

    QVERIFY(model.setData(model.index(0, RunListModel::Run), Qt::Unchecked, Qt::CheckStateRole));
    QCOMPARE(overlay.count(), 1);  // no change, no signal
    QVERIFY(!model.setData(model.index(0, RunListModel::Step), Qt::Checked, Qt::CheckStateRole));
    model.setOverlaid("mixer", true);
    QCOMPARE(overlay.count(), 2);
    QCOMPARE(model.overlaidCurves().size(), 2);
    // The CPU other processes used while it trained: the mean over its log records.
    gui::RunSnapshot shared = runningLlama();
    shared.new_train.clear(), shared.new_eval.clear();
    shared.new_metrics["other_cpu_cores"] = {{1, 512, 0.5, 0.25}, {2, 1024, 1.0, 1.5}, {3, 1536, 1.5, 0.5}};
    model.applySnapshot(shared);
    QCOMPARE(model.overlaidCurves().at(0).run, QString("llama"));
    QCOMPARE(model.overlaidCurves().at(0).other_cpu_cores, (0.25 + 1.5 + 0.5) / 3);
  }

  void projectEditsKeepRowsTheMonitorReported() {
    RunListModel model;
    model.setProjectRuns({{"mixer", "masked_mixer"}, {"llama", "llama"}, {"gpt", "gpt"}});
    model.applySnapshot(runningLlama());
    model.syncProjectRuns({{"mixer", "masked_mixer"}, {"mamba", "mamba"}});
    QCOMPARE(model.runNames(), QStringList({"mixer", "mamba", "llama"}));  // llama has a run directory
    QVERIFY(model.state("llama") == RunState::Running);
    // A renamed run keeps its place in the project's order; a kept index follows its run.
    QPersistentModelIndex llama(model.index(2, RunListModel::Run));
    model.syncProjectRuns({{"mixer-renamed", "masked_mixer"}, {"mamba", "mamba"}});
    QCOMPARE(model.runNames(), QStringList({"mixer-renamed", "mamba", "llama"}));
    QCOMPARE(llama.row(), 2);
    model.syncProjectRuns({{"mamba", "mamba"}, {"llama", "llama"}, {"mixer-renamed", "masked_mixer"}});
    QCOMPARE(model.runNames(), QStringList({"mamba", "llama", "mixer-renamed"}));
    QCOMPARE(llama.row(), 1);
    QCOMPARE(llama.data().toString(), QString("llama"));
  }

  void addUndoRedoRestoreTheFile() {
    const QString file = demoProjectCopy("doc-undo");
    gui::ProjectDocument document;
    QCOMPARE(document.open(file), QString());
    const QByteArray original = fileBytes(file);
    QCOMPARE(document.fileText(), original);
    const QStringList names = document.runNames();
    QVERIFY(names.contains("mixer"));
    QSignalSpy edited(&document, &gui::ProjectDocument::edited);

    QJsonObject extra = document.run("mixer");
    extra["name"] = "extra";
    QCOMPARE(document.addRun(extra), QString());
    const QByteArray added = fileBytes(file);
    QVERIFY(added != original);
    QCOMPARE(nlohmann::json::parse(added.toStdString())["runs"].back()["name"], "extra");
    QCOMPARE(document.runNames(), names + QStringList{"extra"});
    QCOMPARE(document.resolvedRun("extra").value("model").toObject().value("d_model").toInt(), 256);
    QCOMPARE(document.undoStack()->count(), 1);
    QCOMPARE(edited.count(), 1);

    document.undoStack()->undo();
    QCOMPARE(fileBytes(file), original);  // byte for byte, the user's formatting included
    QCOMPARE(document.runNames(), names);
    QVERIFY(document.run("extra").isEmpty());
    document.undoStack()->redo();
    QCOMPARE(fileBytes(file), added);
    QCOMPARE(document.runNames(), names + QStringList{"extra"});
    QCOMPARE(edited.count(), 3);

    // Duplicate, replace and remove are edits too.
    QCOMPARE(document.duplicateRun("mixer", "mixer-2"), QString());
    QJsonObject wider = document.run("mixer-2");
    QJsonObject model = wider.value("model").toObject();
    model["d_model"] = 128;
    wider["model"] = model;
    QCOMPARE(document.replaceRun("mixer-2", wider), QString());
    QCOMPARE(document.resolvedRun("mixer-2").value("model").toObject().value("d_model").toInt(), 128);
    QCOMPARE(document.removeRun("mixer-2"), QString());
    QVERIFY(!document.runNames().contains("mixer-2"));
    QCOMPARE(document.undoStack()->count(), 4);
    document.undoStack()->undo();
    QCOMPARE(document.run("mixer-2").value("model").toObject().value("d_model").toInt(), 128);
    QVERIFY(document.replaceRun("no-such-run", wider).contains("no run named"));
  }

  // The paper presets ship without their corpus: such a project opens, lists its runs and takes
  // edits; only training needs the files.
  void projectWithoutItsCorpusOpens() {
    gui::ProjectDocument document;
    QCOMPARE(document.open(QString::fromStdString((testing::sourceDir() / "projects/paper/project.json").string())),
             QString());
    QVERIFY(document.runNames().contains("s3-mixer-d1024"));
    QCOMPARE(document.run("s3-mixer-d256").value("model").toObject().value("d_model").toInt(), 256);
    QString error;
    QVERIFY(!document.resolvedRun("s3-mixer-d256", &error).isEmpty());
    QCOMPARE(error, QString());
  }

  void invalidRunIsRefusedWithTheCoresMessage() {
    const QString file = demoProjectCopy("doc-invalid");
    gui::ProjectDocument document;
    QCOMPARE(document.open(file), QString());
    const QByteArray original = fileBytes(file);
    QSignalSpy edited(&document, &gui::ProjectDocument::edited);
    const QJsonObject bad{{"name", "bad"}, {"model", QJsonObject{{"arch", "masked_mixer"}, {"d_model", -3}}}};

    // What the core says about the same document.
    auto expected_document = nlohmann::json::parse(original.toStdString());
    expected_document["runs"].push_back({{"name", "bad"}, {"model", {{"arch", "masked_mixer"}, {"d_model", -3}}}});
    QString expected;
    try {
      parseProject(expected_document, file.toStdString());
    } catch (const std::exception& e) {
      expected = QString::fromStdString(e.what());
    }
    QVERIFY(expected.contains("d_model"));

    QCOMPARE(document.addRun(bad), expected);
    QCOMPARE(fileBytes(file), original);
    QCOMPARE(document.undoStack()->count(), 0);
    QCOMPARE(edited.count(), 0);
    QVERIFY(!document.runNames().contains("bad"));
    QVERIFY(document.duplicateRun("mixer", "transformer").contains("duplicate run name"));
    QCOMPARE(fileBytes(file), original);
  }

  void recentProjectsAreBoundedAndUnique() {
    gui::AppSettings settings;
    for (int i = 0; i < 10; ++i) settings.rememberProject(QString("/p/%1/project.json").arg(i));
    QCOMPARE(settings.recentProjects().size(), gui::AppSettings::kMaxRecentProjects);
    QCOMPARE(settings.recentProjects().first(), QString("/p/9/project.json"));
    settings.rememberProject("/p/5/project.json");
    QCOMPARE(gui::AppSettings().recentProjects().first(), QString("/p/5/project.json"));
    QCOMPARE(gui::AppSettings().recentProjects().count("/p/5/project.json"), 1);
    QCOMPARE(gui::AppSettings().lastProject(), QString("/p/5/project.json"));
    settings.setWindowGeometry("geometry-bytes");
    QCOMPARE(gui::AppSettings().windowGeometry(), QByteArray("geometry-bytes"));
  }

  void undoInTheEditMenuUndoesAProjectEdit() {
    const QString file = demoProjectCopy("window-undo");
    gui::MainWindow window;
    QCOMPARE(window.openProject(file), QString());
    const int rows = window.runTable()->model()->rowCount();
    const QByteArray original = fileBytes(file);
    QJsonObject extra = window.project()->run("mixer");
    extra["name"] = "extra";
    QCOMPARE(window.project()->addRun(extra), QString());
    QCOMPARE(window.runTable()->model()->rowCount(), rows + 1);
    QAction* undo = nullptr;
    for (QAction* action : window.findChildren<QAction*>()) {
      if (action->shortcut() == QKeySequence("Ctrl+Z")) undo = action;
    }
    QVERIFY(undo != nullptr);
    QVERIFY(undo->isEnabled());
    undo->trigger();
    QCOMPARE(fileBytes(file), original);
    QCOMPARE(window.runTable()->model()->rowCount(), rows);
    QCOMPARE(window.runModel()->rowOf("extra"), -1);
  }
};

QTEST_MAIN(TestRunListModel)
#include "test_run_list_model.moc"
