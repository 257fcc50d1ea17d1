// Run > Reproduce the paper: the dialog reads `mixerlab reproduce`'s progress lines into overall
// progress, offers Resume for a folder that holds a reproduction, runs the real CLI as a child
// process and shows its error when the folder is unusable (a folder of someone else's files is
// left alone), and a stand-in CLI's finished report enables Open report.
#include <QtTest/QtTest>

#include <QCheckBox>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>

#include "app/gui/launch/reproduce_dialog.h"
#include "app/gui/runs/compute_frontier_groups.h"
#include "tests/test_support.h"

using namespace mixerlab;
namespace fs = std::filesystem;

namespace {
QPushButton* button(QDialog& dialog, const QString& text) {
  for (auto* b : dialog.findChildren<QPushButton*>()) {
    if (b->text() == text) return b;
  }
  return nullptr;
}

bool waitUntil(const std::function<bool()>& done, int timeout_ms) {
  QElapsedTimer waited;
  waited.start();
  while (!done() && waited.elapsed() < timeout_ms) QTest::qWait(20);
  return done();
}
}  // namespace

class TestReproduceDialog : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void progressLinesBecomeOverallProgress() {
    auto step = gui::parseReproduceLine("[3/20] train llama-d128-seed1");
    QVERIFY(step.has_value());
    QCOMPARE(step->step, 3);
    QCOMPARE(step->step_count, 20);
    QCOMPARE(step->title, QString("train llama-d128-seed1"));
    QCOMPARE(step->overall(), 2.0 / 20);
    auto percent = gui::parseReproduceLine("  40% of step 3/20");
    QVERIFY(percent.has_value());
    QVERIFY(percent->title.isEmpty());
    QCOMPARE(percent->overall(), 2.4 / 20);
    QVERIFY(!gui::parseReproduceLine("report: /tmp/x/report.html").has_value());
    QVERIFY(!gui::parseReproduceLine("step 30/300 loss 2.1").has_value());
    // The step's share and the time left at this session's rate: half done in 10 minutes leaves 10;
    // below 1% of the suite no estimate; 3 hours for a quarter leaves 9 hours.
    QCOMPARE(gui::progressNote(0.4, 0.5, 600), QString(" (40% of this step; about 10 min left)"));
    QCOMPARE(gui::progressNote(0.4, 0.005, 600), QString(" (40% of this step)"));
    QCOMPARE(gui::progressNote(0.01, 0.02, 60), QString(" (1% of this step; about 49 min left)"));
    QCOMPARE(gui::progressNote(0.01, 0.01, 60), QString(" (1% of this step; about 1.6 h left)"));
    QCOMPARE(gui::progressNote(0, 0.25, 3 * 3600), QString(" (0% of this step; about 9.0 h left)"));
  }

  // The Scaling tab groups runs by architecture, by width too, or by every setting but the seed.
  void scalingGroupsFollowTheChosenSettings() {
    const QVariantMap seed1{
        {"model.arch", "llama"}, {"model.d_model", 128}, {"train.seed", 1}, {"train.learning_rate", 5e-4}};
    QVariantMap seed2 = seed1;
    seed2["train.seed"] = 2;
    QVariantMap wider = seed1;
    wider["model.d_model"] = 256;
    using widgets::FrontierGrouping;
    QCOMPARE(gui::frontierGroupKey(seed1, FrontierGrouping::Architecture), QString("llama"));
    QCOMPARE(gui::frontierGroupKey(wider, FrontierGrouping::Architecture), QString("llama"));
    QCOMPARE(gui::frontierGroupKey(wider, FrontierGrouping::ArchitectureAndWidth), QString("llama D=256"));
    QCOMPARE(gui::frontierGroupKey(seed1, FrontierGrouping::AllButSeed),
             gui::frontierGroupKey(seed2, FrontierGrouping::AllButSeed));
    QVERIFY(gui::frontierGroupKey(seed1, FrontierGrouping::AllButSeed) !=
            gui::frontierGroupKey(wider, FrontierGrouping::AllButSeed));
    // A seed trained as 2 ranks (1 thread each) stays in its group.
    QVariantMap ranked = seed2;
    ranked["train.threads"] = 1;
    ranked["train.device"] = "cpu";
    QCOMPARE(gui::frontierGroupKey(ranked, FrontierGrouping::AllButSeed),
             gui::frontierGroupKey(seed1, FrontierGrouping::AllButSeed));
  }

  void aFolderWithAPlanOffersResume() {
    const fs::path folder = testing::makeScratchDir("reproduce-dialog-plan");
    gui::ReproduceDialog dialog(QString::fromStdString(testing::cliPath().string()),
                                QString::fromStdString((folder / "fresh").string()));
    QVERIFY(button(dialog, "Start"));
    QVERIFY(!dialog.findChild<QCheckBox*>()->isChecked());
    testing::writeText(folder / "plan.json", "{}");
    dialog.findChild<QLineEdit*>()->setText(QString::fromStdString(folder.string()));
    QVERIFY(button(dialog, "Resume"));
    QVERIFY(dialog.findChild<QCheckBox*>()->isChecked());
    QVERIFY(!button(dialog, "Open report")->isEnabled());
  }

  void theRealCliRefusesSomeoneElsesFolder() {
    const fs::path folder = testing::makeScratchDir("reproduce-dialog-foreign");
    testing::writeText(folder / "thesis.tex", "mine");
    gui::ReproduceDialog dialog(QString::fromStdString(testing::cliPath().string()),
                                QString::fromStdString(folder.string()));
    bool report_written = true;
    connect(&dialog, &gui::ReproduceDialog::finished, this, [&](bool written) { report_written = written; });
    dialog.start();
    QVERIFY(dialog.running());
    QVERIFY(waitUntil([&] { return !dialog.running(); }, 60000));
    QVERIFY(!report_written);
    const QString log = dialog.findChild<QPlainTextEdit*>()->toPlainText();
    QVERIFY2(log.contains("not empty"), qPrintable(log));
    QVERIFY(fs::exists(folder / "thesis.tex"));
    QVERIFY(!fs::exists(folder / "plan.json"));
    // The message says where the log is and offers only a button that is there (no plan: Start).
    QString said;
    for (auto* label : dialog.findChildren<QLabel*>())
      if (label->text().startsWith("Failed")) said = label->text();
    QCOMPARE(said, QString("Failed (the log below says why): fix the cause, then press Start."));
  }

  void aFinishedReproductionEnablesTheReport() {
    // A stand-in CLI that prints the real progress lines and writes a report.
    const fs::path folder = testing::makeScratchDir("reproduce-dialog-done");
    const fs::path out = folder / "out";
    const fs::path script = folder / "fake-mixerlab";
    testing::writeText(script,
                       "#!/bin/sh\n"
                       "out=\"$5\"; mkdir -p \"$out\"\n"
                       "echo '[1/2] train mixer'; echo '  50% of step 1/2'; echo '[2/2] report'\n"
                       "echo '<html></html>' > \"$out/report.html\"; echo '{}' > \"$out/project.json\"\n"
                       "echo \"report: $out/report.html\"\n");
    fs::permissions(script, fs::perms::owner_all);
    gui::ReproduceDialog dialog(QString::fromStdString(script.string()), QString::fromStdString(out.string()));
    bool report_written = false;
    connect(&dialog, &gui::ReproduceDialog::finished, this, [&](bool written) { report_written = written; });
    dialog.start();
    QVERIFY(waitUntil([&] { return !dialog.running(); }, 30000));
    QVERIFY(report_written);
    QCOMPARE(dialog.findChild<QProgressBar*>()->value(), 1000);
    QVERIFY(button(dialog, "Open report")->isEnabled());
    QVERIFY(button(dialog, "Open runs as project")->isEnabled());
    QString requested;
    connect(&dialog, &gui::ReproduceDialog::openProjectRequested, this, [&](const QString& f) { requested = f; });
    button(dialog, "Open runs as project")->click();
    QCOMPARE(requested, QString::fromStdString((out / "project.json").string()));
  }
};

QTEST_MAIN(TestReproduceDialog)
#include "test_reproduce_dialog.moc"
