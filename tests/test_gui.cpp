// GUI tests (offscreen): the loss series never overlaps after a resume; the real main window
// launches a short run as a child process, sees it finish and draws its curve; closing and
// reopening the window mid-run reattaches to the run.
#include <QtTest/QtTest>

#include <QAction>
#include <QTableView>

#include <fstream>

#include <nlohmann/json.hpp>

#include "app/gui/main_window.h"
#include "tests/training_fixture.h"
#include "widgets/loss_plot_widget.h"

using namespace mixerlab;
namespace fs = std::filesystem;

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
    auto demo = nlohmann::json::parse(std::ifstream(testing::sourceDir() / "projects/demo/project.json"));
    const fs::path data = testing::sourceDir() / "projects/demo/data";
    demo["corpus"]["train"] = (data / "stories-b.txt").string();
    demo["corpus"]["eval"] = (data / "stories-a.txt").string();
    demo["defaults"]["train"]["max_steps"] = 40;
    demo["defaults"]["train"]["eval_every"] = 20;
    demo["defaults"]["train"]["checkpoint_every"] = 20;
    testing::writeText(dir / "project.json", demo.dump(2));
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
