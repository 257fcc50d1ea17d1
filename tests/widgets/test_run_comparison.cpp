// Run comparison tests on made-up curves: final/best losses, eval loss interpolated at an equal
// budget, the budget all runs reached, flattened config differences, group summaries (mean ± sample
// sd over a group's runs) and the widget's tables.
#include <QtTest/QtTest>

#include <limits>

#include <QJsonArray>
#include <QLabel>
#include <QTableWidget>
#include <cmath>

#include "widgets/tables/group_summary.h"
#include "widgets/tables/run_comparison.h"

using namespace mixerlab::widgets;

namespace {
// Eval every 10 steps, train every step; tokens = 100 x step, wall = step x seconds_per_step.
RunCurve makeCurve(const QString& run, int last_step, double start_loss, double seconds_per_step, double lr) {
  RunCurve c;
  c.run = run;
  for (int step = 0; step <= last_step; ++step) {
    CurvePoint p;
    p.step = step;
    p.tokens = 100.0 * step;
    p.wall_s = seconds_per_step * step;
    p.flops = 1e6 * step;
    if (step > 0) p.train_loss = start_loss - 0.01 * step;
    if (step % 10 == 0) p.eval_loss = start_loss - 0.02 * step;
    c.points.push_back(p);
  }
  c.config =
      QJsonObject{{"model", QJsonObject{{"arch", "masked_mixer"}, {"d_model", 64}}},
                  {"train", QJsonObject{{"learning_rate", lr}, {"batch_size", 4}, {"betas", QJsonArray{0.9, 0.95}}}}};
  return c;
}
}  // namespace

class TestRunComparison : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void finalAndBestLosses() {
    const RunCurve c = makeCurve("a", 40, 8.0, 1.0, 1e-3);
    QCOMPARE(finalTrainLoss(c), 8.0 - 0.4);
    QCOMPARE(finalEvalLoss(c), 8.0 - 0.8);
    QCOMPARE(bestEvalLoss(c), 8.0 - 0.8);
    RunCurve empty;
    QVERIFY(std::isnan(finalTrainLoss(empty)));
    QVERIFY(std::isnan(bestEvalLoss(empty)));
  }

  void valueAtBudgetInterpolatesBetweenEvalPoints() {
    const RunCurve c = makeCurve("a", 40, 8.0, 2.0, 1e-3);
    QCOMPARE(valueAtBudget(c, Budget::Steps, 20), 8.0 - 0.4);  // an eval point
    QVERIFY(std::abs(valueAtBudget(c, Budget::Steps, 25) - (8.0 - 0.5)) < 1e-12);
    QVERIFY(std::abs(valueAtBudget(c, Budget::Tokens, 1500) - (8.0 - 0.3)) < 1e-12);     // step 15
    QVERIFY(std::abs(valueAtBudget(c, Budget::WallSeconds, 70) - (8.0 - 0.7)) < 1e-12);  // step 35
    QVERIFY(std::isnan(valueAtBudget(c, Budget::Steps, 41)));                            // beyond the last eval
    QVERIFY(std::isnan(valueAtBudget(c, Budget::Steps, -1)));
  }

  void commonBudgetIsTheSmallestReach() {
    const QVector<RunCurve> runs{makeCurve("long", 60, 8.0, 1.0, 1e-3), makeCurve("short", 30, 7.5, 3.0, 1e-3)};
    QCOMPARE(commonBudget(runs, Budget::Steps), 30.0);
    QCOMPARE(commonBudget(runs, Budget::Tokens), 3000.0);
    QCOMPARE(commonBudget(runs, Budget::WallSeconds), 60.0);  // "long" reached step 60 at 60 s
    QCOMPARE(valueAtBudget(runs[0], Budget::WallSeconds, 60.0), 8.0 - 1.2);
    QCOMPARE(valueAtBudget(runs[1], Budget::WallSeconds, 60.0), 7.5 - 0.4);  // step 20
    QVERIFY(std::isnan(commonBudget({runs[0], RunCurve{}}, Budget::Steps)));
  }

  void configDifferencesAreFlattenedKeys() {
    RunCurve a = makeCurve("a", 10, 8.0, 1.0, 1e-3);
    RunCurve b = makeCurve("b", 10, 8.0, 1.0, 3e-3);
    QJsonObject train = b.config["train"].toObject();
    train["warmup_steps"] = 5;
    b.config["train"] = train;
    const auto flat = flattenConfig(a.config);
    QCOMPARE(flat.value("model.d_model").toInt(), 64);
    QVERIFY(flat.value("train.betas").isArray());
    QCOMPARE(differingConfigKeys({a, b}), QStringList({"train.learning_rate", "train.warmup_steps"}));
    QCOMPARE(differingConfigKeys({a, a}), QStringList());
    QCOMPARE(configValueText(QJsonValue(QJsonValue::Undefined)), QString("—"));
    // How a run ran (threads here) is kept apart from what it trains.
    train = b.config["train"].toObject();
    train["threads"] = 1;
    b.config["train"] = train;
    const auto [trained, ran] = differingConfigKeys({a, b}, {"train.device", "train.threads"});
    QCOMPARE(trained, QStringList({"train.learning_rate", "train.warmup_steps"}));
    QCOMPARE(ran, QStringList({"train.threads"}));
    RunComparisonWidget w;
    w.setExecutionKeys({"train.device", "train.threads"});
    w.setRuns({a, b});
    QCOMPARE(w.configTable()->rowCount(), 3);
    QCOMPARE(w.configTable()->verticalHeaderItem(2)->text(), QString("ran with: train.threads"));
    QCOMPARE(w.configTable()->item(2, 1)->background().style(), Qt::NoBrush);  // not highlighted
    QVERIFY(w.configTable()->item(0, 1)->background().style() != Qt::NoBrush);
  }

  void groupSpreadIsTheSampleSd() {
    const LossSpread two = lossSpread({3.0, 3.2});
    QCOMPARE(two.n, 2);
    QVERIFY(std::abs(two.mean - 3.1) < 1e-12);
    QVERIFY(std::abs(two.sd - std::sqrt(0.02)) < 1e-12);            // ((0.1)^2 + (0.1)^2) / (2 - 1)
    const LossSpread three = lossSpread({1.0, 2.0, kNoLoss, 4.0});  // a run without the value is left out
    QCOMPARE(three.n, 3);
    QVERIFY(std::abs(three.mean - 7.0 / 3) < 1e-12);
    QVERIFY(std::abs(three.sd - std::sqrt(((1 - 7.0 / 3) * (1 - 7.0 / 3) + (2 - 7.0 / 3) * (2 - 7.0 / 3) +
                                           (4 - 7.0 / 3) * (4 - 7.0 / 3)) /
                                          2)) < 1e-12);
    QCOMPARE(lossSpread({2.5}).n, 1);
    QVERIFY(std::isnan(lossSpread({2.5}).sd));
    QCOMPARE(lossSpread({}).n, 0);
    QCOMPARE(lossSpreadText(two), QString("3.1000 ± 0.1414 (n = 2)"));
    QCOMPARE(lossSpreadText(lossSpread({2.5})), QString("2.5000 (n = 1)"));
    QCOMPARE(lossSpreadText(lossSpread({kNoLoss})), QString("—"));
  }

  void groupsAreSummarisedAtTheCommonBudget() {
    const QVector<RunCurve> curves{makeCurve("a", 100, 5.0, 1.0, 1e-3), makeCurve("c", 60, 4.0, 1.0, 1e-3),
                                   makeCurve("b", 100, 5.2, 1.0, 1e-3)};
    const QHash<QString, QString> groups{{"a", "mixer"}, {"b", "mixer"}};
    const QVector<GroupSummary> out = summarizeGroups(curves, groups, Budget::Steps, 60);
    QCOMPARE(out.size(), 2);
    QCOMPARE(out[0].group, QString("mixer"));  // in order of first appearance
    QCOMPARE(out[0].runs, 2);
    QVERIFY(std::abs(out[0].final_eval.mean - 3.1) < 1e-9);      // 5.0 - 2.0 and 5.2 - 2.0
    QVERIFY(std::abs(out[0].eval_at_budget.mean - 3.9) < 1e-9);  // 5.0 - 1.2 and 5.2 - 1.2
    QVERIFY(std::abs(out[0].eval_at_budget.sd - std::sqrt(0.02)) < 1e-9);
    QVERIFY(std::abs(out[0].best_eval.mean - 3.1) < 1e-9);
    QCOMPARE(out[1].group, QString("c"));  // not in a group: its own, by name
    QCOMPARE(out[1].runs, 1);
    QVERIFY(std::abs(out[1].eval_at_budget.mean - 2.8) < 1e-9);
    QCOMPARE(summarizeGroups(curves, groups, Budget::Steps, kNoLoss)[0].eval_at_budget.n, 0);

    RunComparisonWidget w;
    w.setRuns(curves);
    QVERIFY(w.groupsTable()->isHidden());  // no grouping: no summary
    w.setGroups(groups);
    QVERIFY(!w.groupsTable()->isHidden());
    QCOMPARE(w.groupsTable()->rowCount(), 2);
    QCOMPARE(w.groupsTable()->verticalHeaderItem(0)->text(), QString("mixer"));
    QCOMPARE(w.groupsTable()->item(0, RunComparisonWidget::GroupRuns)->text(), QString("2"));
    QCOMPARE(w.groupsTable()->item(0, RunComparisonWidget::GroupFinalEval)->text(), QString("3.1000 ± 0.1414 (n = 2)"));
    QCOMPARE(w.groupsTable()->item(0, RunComparisonWidget::GroupEvalAtBudget)->text(),
             QString("3.9000 ± 0.1414 (n = 2)"));
    QVERIFY(w.groupsTable()->horizontalHeaderItem(RunComparisonWidget::GroupEvalAtBudget)->text().contains("60"));
    w.setBudget(Budget::Tokens);  // the same point by tokens: 100 x step
    QVERIFY(w.groupsTable()->horizontalHeaderItem(RunComparisonWidget::GroupEvalAtBudget)->text().contains("6000"));
    w.setGroups({{"a", "x"}, {"b", "y"}});  // every group one run: nothing to summarise
    QVERIFY(w.groupsTable()->isHidden());
  }

  // Wall-clock comparisons mixed runs that trained alone with runs that shared the cores. A run's
  // mean other_cpu_cores at or above half a core marks it, and the wall-clock budget warns.
  void wallClockWarnsOfRunsThatSharedTheMachine() {
    QVector<RunCurve> curves{makeCurve("solo", 50, 5.0, 1.0, 1e-3), makeCurve("just-below", 50, 5.0, 1.0, 1e-3),
                             makeCurve("at-limit", 50, 5.0, 1.0, 1e-3), makeCurve("crowded", 50, 5.0, 1.0, 1e-3)};
    curves[1].other_cpu_cores = 0.49;
    curves[2].other_cpu_cores = kSharedMachineCores;
    curves[3].other_cpu_cores = 1.5;
    QCOMPARE(runsThatSharedTheMachine(curves), (QStringList{"at-limit", "crowded"}));
    const QString warning = sharedMachineWarning(curves);
    QVERIFY2(warning.contains("at-limit (0.5 cores") && warning.contains("crowded (1.5 cores"), qPrintable(warning));
    QVERIFY(!warning.contains("just-below") && !warning.contains("solo"));
    QVERIFY(sharedMachineWarning({curves[0], curves[1]}).isEmpty());

    RunComparisonWidget w;
    w.show();
    QVERIFY(!w.sharedMachineNote()->isVisible());  // no runs yet: no empty yellow strip
    w.setRuns(curves);
    QVERIFY(w.sharedMachineNote()->isHidden());  // steps: the machine's load does not matter
    w.setBudget(Budget::WallSeconds);
    QVERIFY(!w.sharedMachineNote()->isHidden());
    QCOMPARE(w.sharedMachineNote()->text(), warning);
    w.setBudget(Budget::Tokens);
    QVERIFY(w.sharedMachineNote()->isHidden());
  }

  void widgetShowsTables() {
    RunCurve a = makeCurve("mixer", 60, 8.0, 1.0, 1e-3);
    RunCurve b = makeCurve("llama", 30, 7.5, 3.0, 3e-3);
    RunCurve c = makeCurve("mixer-lr", 50, 7.8, 1.5, 1e-3);
    QJsonObject model = b.config["model"].toObject();
    model["arch"] = "llama";
    b.config["model"] = model;
    RunComparisonWidget w;
    w.resize(900, 420);
    w.setRuns({a, b, c});
    QCOMPARE(w.resultsTable()->rowCount(), 3);
    QVERIFY(w.resultsTable()->horizontalHeaderItem(RunComparisonWidget::EvalAtBudget)->text().contains("step = 30"));
    QCOMPARE(w.resultsTable()->item(0, RunComparisonWidget::EvalAtBudget)->text(), QString::number(8.0 - 0.6, 'f', 4));
    // A value interpolated between evals is marked as such; a measured one is not.
    RunCurve sparse = makeCurve("sparse", 60, 8.0, 1.0, 1e-3);
    for (CurvePoint& p : sparse.points) {
      if (p.step == 30) p.eval_loss = std::numeric_limits<double>::quiet_NaN();  // evals at 20 and 40 only around 30
    }
    w.setRuns({a, b, sparse});
    QCOMPARE(w.resultsTable()->item(0, RunComparisonWidget::EvalAtBudget)->text(), QString::number(8.0 - 0.6, 'f', 4));
    QCOMPARE(w.resultsTable()->item(2, RunComparisonWidget::EvalAtBudget)->text(),
             "\u2248 " + QString::number(8.0 - 0.6, 'f', 4));  // the line through 20 and 40 passes 7.4 at 30
    QVERIFY(w.resultsTable()->item(2, RunComparisonWidget::EvalAtBudget)->toolTip().contains("interpolated"));
    QVERIFY(w.resultsTable()->horizontalHeaderItem(RunComparisonWidget::EvalAtBudget)->text().contains("interpolated"));
    w.setRuns({a, b, c});
    QCOMPARE(w.resultsTable()->item(1, RunComparisonWidget::BestEval)->text(), QString::number(7.5 - 0.6, 'f', 4));
    w.setBudget(Budget::WallSeconds);
    QVERIFY(w.resultsTable()->horizontalHeaderItem(RunComparisonWidget::EvalAtBudget)->text().contains("wall-clock"));
    QCOMPARE(w.configTable()->rowCount(), 2);  // model.arch, train.learning_rate
    QCOMPARE(w.configTable()->columnCount(), 3);
    // llama differs from the majority in both rows: its cells are highlighted, the others not.
    QVERIFY(w.configTable()->item(0, 1)->background().style() != Qt::NoBrush);
    QVERIFY(w.configTable()->item(0, 0)->background().style() == Qt::NoBrush);
    QDir().mkpath(QDir::tempPath() + "/mixerlab-test-run-comparison");
    QVERIFY(w.grab().save(QDir::tempPath() + "/mixerlab-test-run-comparison/run-comparison.png"));
  }
};

QTEST_MAIN(TestRunComparison)
#include "test_run_comparison.moc"
