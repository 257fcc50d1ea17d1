// Sweep tests: the plan of a grid and of a list over config fields, its errors,
// the sweep editor's preview, and the main window adding a sweep's runs as one undoable edit (all
// or none, with the core's message for a bad value) and queueing them.
#include <QtTest/QtTest>

#include <QApplication>
#include <QCheckBox>
#include <QDialogButtonBox>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QTimer>
#include <QUndoStack>

#include <fstream>

#include <nlohmann/json.hpp>

#include "app/gui/launch/run_queue.h"
#include "app/gui/project/project_document.h"
#include "app/gui/project/run_setup_dialog.h"
#include "app/gui/shell/main_window.h"
#include "core/runs/run_status.h"
#include "tests/test_support.h"
#include "tests/training_fixture.h"
#include "widgets/forms/sweep_dialog.h"
#include "widgets/forms/sweep_plan.h"

using namespace mixerlab;
using namespace mixerlab::widgets;
namespace fs = std::filesystem;

namespace {
QJsonObject baseRun() { return QJsonObject{{"name", "mixer"}, {"model", QJsonObject{{"arch", "masked_mixer"}}}}; }

QStringList names(const QVector<QJsonObject>& runs) {
  QStringList out;
  for (const QJsonObject& r : runs) out << r.value("name").toString();
  return out;
}
}  // namespace

class TestSweeps : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void gridAndListPlans() {
    QCOMPARE(parseSweepValues(" 256, 512 ,"), (QVector<QJsonValue>{256, 512}));
    QCOMPARE(parseSweepValues("1e-3, 0.5, true, cosine"), (QVector<QJsonValue>{1e-3, 0.5, true, QString("cosine")}));
    QString error;
    const QVector<SweepAxis> axes{{"model.d_model", {256, 512}}, {"train.learning_rate", {1e-3, 3e-4, 1e-4}}};
    const auto grid = planSweep(baseRun(), axes, SweepMode::Grid, &error);
    QCOMPARE(grid.size(), 6);
    QCOMPARE(grid[1].value("name").toString(), QString("mixer-d_model256-learning_rate0.0003"));
    QCOMPARE(grid[5].value("model").toObject().value("d_model").toInt(), 512);
    QCOMPARE(grid[5].value("model").toObject().value("arch").toString(), QString("masked_mixer"));  // base kept
    QCOMPARE(grid[5].value("train").toObject().value("learning_rate").toDouble(), 1e-4);
    const QStringList grid_names = names(grid);
    QCOMPARE(QSet<QString>(grid_names.begin(), grid_names.end()).size(), 6);  // names never collide
    const auto list =
        planSweep(baseRun(), {{"model.d_model", {256, 512}}, {"model.n_layers", {4, 8}}}, SweepMode::List, &error);
    QCOMPARE(names(list), (QStringList{"mixer-d_model256-n_layers4", "mixer-d_model512-n_layers8"}));
    QVERIFY(planSweep(baseRun(), axes, SweepMode::List, &error).isEmpty());
    QVERIFY2(error.contains("same number of values"), qPrintable(error));
    QVERIFY(planSweep(baseRun(), {{"model.d_model", {}}}, SweepMode::Grid, &error).isEmpty());
    QVERIFY(error.contains("model.d_model has no values"));
    QVERIFY(planSweep(baseRun(), {{"model.d_model", {1}}, {"model.d_model", {2}}}, SweepMode::Grid, &error).isEmpty());
    QVERIFY(error.contains("swept twice"));
  }

  void editorPreviewsTheRuns() {
    SweepDialog dialog(baseRun(), {"model.d_model", "train.learning_rate"});
    dialog.setAxes({{"model.d_model", "256, 512"}, {"train.learning_rate", "1e-3, 3e-4"}});
    auto* preview = dialog.findChild<QListWidget*>("sweep-preview");
    QCOMPARE(preview->count(), 4);
    QCOMPARE(preview->item(0)->text(), QString("mixer-d_model256-learning_rate0.001"));
    dialog.setMode(SweepMode::List);
    QCOMPARE(preview->count(), 2);
    dialog.setAxes({{"model.d_model", "256, 512"}, {"train.learning_rate", "1e-3"}});
    QCOMPARE(preview->count(), 0);  // a list of unequal lengths: nothing to create, and it says why
    QVERIFY(dialog.error().contains("same number of values"));
  }

  // The run form's "Sweep…" accepts the form as the base of a sweep (only while the run is valid).
  void runFormOffersASweep() {
    const QString demo = QString::fromStdString((testing::sourceDir() / "projects/demo/project.json").string());
    gui::RunSetupDialog dialog(demo, QJsonObject{{"name", "base"}, {"model", QJsonObject{{"arch", "masked_mixer"}}}});
    QVERIFY(dialog.sweepButton()->isEnabled());
    dialog.sweepButton()->click();
    QVERIFY(dialog.sweepRequested());
    QCOMPARE(dialog.result(), int(QDialog::Accepted));
    gui::RunSetupDialog broken(
        demo, QJsonObject{{"name", "base"}, {"model", QJsonObject{{"arch", "masked_mixer"}, {"d_model", -3}}}});
    QVERIFY(!broken.sweepButton()->isEnabled());
  }

  // A value the project refuses ("64, abc" for model.d_model) is caught in the preview
  // with the project's own message, and Create stays off; a Create that fails keeps the dialog
  // open with the error in it; a cancelled editor comes back with what was typed.
  void editorChecksEachRunAndKeepsTheDraft() {
    const fs::path dir = testing::makeScratchDir("sweep-check");
    gui::MainWindow window;
    QCOMPARE(window.openProject(QString::fromStdString(testing::writeDemoProjectCopy(dir).string())), QString());
    SweepDialog dialog(window.project()->run("mixer"), {"model.d_model"});
    dialog.setRunCheck([&](const QJsonObject& run) { return window.project()->checkNewRuns({run}); });
    dialog.setAxes({{"model.d_model", "64, abc"}});
    auto* preview = dialog.findChild<QListWidget*>("sweep-preview");
    auto* create = dialog.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok);
    QCOMPARE(preview->count(), 2);
    QCOMPARE(preview->item(0)->text(), QString("mixer-d_model64"));  // the valid run, plain
    // The project's message, about the field (not about a runs[N] the file does not have).
    QVERIFY2(preview->item(1)->text().startsWith("mixer-d_modelabc  \u2014 model.d_model: ") &&
                 preview->item(1)->text().contains("\"abc\""),
             qPrintable(preview->item(1)->text()));
    QVERIFY(!create->isEnabled());
    QVERIFY2(dialog.error().startsWith("mixer-d_modelabc: model.d_model: "), qPrintable(dialog.error()));
    dialog.setAxes({{"model.d_model", "64, 96"}});
    QVERIFY(create->isEnabled());

    int calls = 0;
    dialog.setCreate([&](const QVector<QJsonObject>& runs, bool) {
      ++calls;
      return runs.size() == 2 ? QString("the disk is full") : QString();
    });
    dialog.show();
    create->click();
    QCOMPARE(calls, 1);
    QVERIFY(dialog.isVisible() && dialog.result() != QDialog::Accepted);
    QCOMPARE(dialog.error(), QString("the disk is full"));
    bool shown = false;
    for (auto* label : dialog.findChildren<QLabel*>())
      shown = shown || label->text() == "Not created: the disk is full";
    QVERIFY(shown);

    // The window keeps a cancelled editor's fields for the next sweep from the same run.
    QTimer::singleShot(0, [] {
      auto* open = qobject_cast<SweepDialog*>(QApplication::activeModalWidget());
      QVERIFY(open);
      open->setMode(SweepMode::List);
      open->findChild<QCheckBox*>()->setChecked(false);  // no training started by the test
      open->setAxes({{"model.d_model", "80, 112"}, {"train.learning_rate", "1e-3, 2e-3"}});
      open->reject();
    });
    QCOMPARE(window.sweepFrom(window.project()->run("mixer"), {}), QString("cancelled"));
    SweepDraft reopened;
    QTimer::singleShot(0, [&] {
      auto* open = qobject_cast<SweepDialog*>(QApplication::activeModalWidget());
      QVERIFY(open);
      reopened = open->draft();
      open->findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok)->click();  // creates the two runs
    });
    QCOMPARE(window.sweepFrom(window.project()->run("mixer"), {}), QString());
    QCOMPARE(reopened.axes.size(), 2);
    QCOMPARE(reopened.axes[0].second, QString("80, 112"));
    QCOMPARE(reopened.axes[1].first, QString("train.learning_rate"));
    QCOMPARE(reopened.mode, SweepMode::List);
    QVERIFY(!reopened.queue);
    QVERIFY(window.project()->runNames().contains("mixer-d_model112-learning_rate0.002"));
    QTimer::singleShot(0, [&] {  // created: the next editor starts from the defaults again
      auto* open = qobject_cast<SweepDialog*>(QApplication::activeModalWidget());
      QVERIFY(open);
      reopened = open->draft();
      open->reject();
    });
    window.sweepFrom(window.project()->run("mixer"), {});
    QCOMPARE(reopened.axes.value(0).second, QString());
    QCOMPARE(reopened.mode, SweepMode::Grid);
    for (const QString& run : window.queue()->pending()) window.queue()->remove(run);
  }

  void windowAddsAndQueuesASweep() {
    const fs::path dir = testing::makeScratchDir("sweeps");
    const fs::path project_file = testing::writeDemoProjectCopy(dir);
    gui::MainWindow window;
    QCOMPARE(window.openProject(QString::fromStdString(project_file.string())), QString());
    const int runs_before = window.project()->runNames().size();
    QString error;
    // A bad value in the third run: nothing is added, and the message names the run.
    const auto bad =
        planSweep(window.project()->run("mixer"), {{"model.d_model", {128, 256, -1}}}, SweepMode::Grid, &error);
    const QString refused = window.createSweep(bad, false);
    QVERIFY2(refused.startsWith("mixer-d_model-1: "), qPrintable(refused));
    QCOMPARE(window.project()->runNames().size(), runs_before);
    const auto good =
        planSweep(window.project()->run("mixer"),
                  {{"model.d_model", {128, 192}}, {"train.learning_rate", {1e-3, 3e-4}}}, SweepMode::Grid, &error);
    RunStatus busy;  // a run started by hand trains: the queue keeps the sweep waiting
    busy.state = RunState::Running;
    busy.pid = QCoreApplication::applicationPid();
    busy.host = hostName();
    const fs::path by_hand = fs::path(window.runsDirectory().toStdString()) / "by-hand";
    fs::create_directories(by_hand);
    writeRunStatus(by_hand, busy);
    QCOMPARE(window.createSweep(good, /*queue=*/true), QString());
    QCOMPARE(window.project()->runNames().size(), runs_before + 4);
    QCOMPARE(window.project()
                 ->resolvedRun("mixer-d_model192-learning_rate0.0003")
                 .value("model")
                 .toObject()
                 .value("d_model")
                 .toInt(),
             192);
    QCOMPARE(window.queue()->pending(), names(good));
    window.project()->undoStack()->undo();  // one undo takes the whole sweep back
    QCOMPARE(window.project()->runNames().size(), runs_before);
    for (const QString& run : window.queue()->pending()) window.queue()->remove(run);
  }
};

QTEST_MAIN(TestSweeps)
#include "test_sweeps.moc"
