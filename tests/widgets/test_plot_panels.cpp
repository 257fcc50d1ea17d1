// Widget tests of the plot area: any logged metric in a panel, several panels with one
// shared x axis, the hover readout of every run at one x, the legend off the curves, uniform
// log-axis labels and the point that "fork from here" forks from. Pure widgets: no torch, no core.
#include <QtTest/QtTest>

#include <qcustomplot.h>
#include <QComboBox>
#include <QListWidget>
#include <QRegularExpression>
#include <QSignalSpy>

#include "tests/loss_plot_fixture.h"
#include "widgets/plots/compute_frontier_view.h"
#include "widgets/plots/curve_processing.h"
#include "widgets/plots/loss_plot_widget.h"
#include "widgets/plots/plot_panels.h"
#include "widgets/plots/run_legend_list.h"

using namespace mixerlab::widgets;
using mixerlab::widgets::testing::makeRun;
using mixerlab::widgets::testing::showPlot;

namespace {
// makeRun plus an lr point and a made-up metric every 10 steps.
LossSeries runWithMetrics(const QString& name, double lr_scale, unsigned seed) {
  LossSeries s = makeRun(name, 200, 4.0, 6e6, seed);
  for (int step = 10; step <= 200; step += 10) {
    s.appendMetric("lr", {double(step), step * 2048.0, step * 0.25, lr_scale * step, 0});
    s.appendMetric("router_entropy", {double(step), step * 2048.0, step * 0.25, 1.0 / step, 0});
  }
  return s;
}
}  // namespace

class TestPlotPanels : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void metricPickerPlotsAnyLoggedMetric() {
    LossPlotWidget w;
    w.resize(900, 500);
    w.setSeries(runWithMetrics("mixer", 1e-5, 1));
    w.setSeries(runWithMetrics("llama", 2e-5, 2));
    QVERIFY(w.availableMetrics().contains("router_entropy"));  // a metric nobody declared
    auto* box = w.findChild<QComboBox*>("metric-box");
    QVERIFY(box);
    QVERIFY(box->findData("router_entropy") >= 0);
    QCOMPARE(w.graphCount(), 4);  // loss: train and eval per run
    box->setCurrentIndex(box->findData("lr"));
    QCOMPARE(w.metric(), QString("lr"));
    QCOMPARE(w.graphCount(), 2);                  // one line per run
    QCOMPARE(w.pointCount("mixer", false), 200);  // the loss series is untouched
    QCOMPARE(w.drawnPointCount("llama", false), 20);
    const QString readout = w.readoutAcrossRuns(100);
    QVERIFY2(readout.contains("mixer: 0.001") && readout.contains("llama: 0.002"), qPrintable(readout));
  }

  void hoverShowsEveryVisibleRunAtOneX() {
    LossPlotWidget w;
    w.resize(900, 500);
    const LossSeries a = makeRun("mixer", 200, 4.0, 6e6, 1), b = makeRun("transformer", 200, 4.5, 6e6, 2);
    w.setSeries(a);
    w.setSeries(b);
    const QStringList lines = w.readoutAcrossRuns(100).split('\n');
    QCOMPARE(lines.front(), QString("step = 100"));
    QCOMPARE(lines.size(), 5);  // the header, then train and eval of both runs
    QVERIFY(lines.contains("mixer train: " + QString::number(a.train[99].loss, 'g', 5)));
    QVERIFY(lines.contains("transformer eval: " + QString::number(b.eval[1].loss, 'g', 5)));
    // Between logged points a run's value says where it was logged.
    w.removeRun("transformer");
    const QString between = w.readoutAcrossRuns(120);
    QVERIFY2(between.contains("mixer eval: " + QString::number(a.eval[1].loss, 'g', 5) + "  (at 100)"),
             qPrintable(between));
  }

  void legendNeverCoversTheCurves() {
    LossPlotWidget w;
    QVERIFY(showPlot(w));
    for (int i = 0; i < 6; ++i) w.setSeries(makeRun("run-" + QString::number(i), 200, 4.0 + 0.1 * i, 6e6, i + 1));
    w.replotNow();
    QVERIFY(w.legendRect().height() > 0);
    QVERIFY2(!w.legendRect().intersects(w.axisRect()), "the legend is drawn over the curves");
  }

  void logXLabelsAreUniformPowersOfTen() {
    LossPlotWidget w;
    QVERIFY(showPlot(w));
    LossSeries s;
    s.run = "mixer";
    for (int i = 0; i <= 40; ++i) {
      const double flops = std::pow(10.0, 9.0 + i * 0.1);  // 1e9 .. 1e13
      s.appendTrain({double(i + 1), double(i + 1), double(i + 1), 5.0 - 0.01 * i, flops});
    }
    w.setSeries(s);
    w.setAxis(LossAxis::Flops);
    w.setLogX(true);
    w.replotNow();
    const QStringList labels = w.xTickLabels();
    QVERIFY(labels.size() >= 3);
    static const QRegularExpression power(QStringLiteral("^10[⁻]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+$"));
    for (const QString& label : labels) QVERIFY2(power.match(label).hasMatch(), qPrintable(labels.join(" | ")));
    QVERIFY(labels.contains(QStringLiteral("10¹²")));
  }

  void forkPointIsTheNearestLoggedStep() {
    LossPlotWidget w;
    QVERIFY(showPlot(w));
    const LossSeries s = makeRun("mixer", 200, 4.0, 6e6, 1);
    w.setSeries(s);
    w.setAxis(LossAxis::Tokens);  // the step is found from the x of another axis
    w.replotNow();
    const LossPoint p = s.eval[2];  // step 150
    const QPointF pixel = w.dataToPixel(p.tokens, p.loss);
    QString run;
    double step = -1;
    QVERIFY(w.pointAt(pixel.x(), pixel.y(), &run, &step));
    QCOMPARE(run, QString("mixer"));
    QCOMPARE(step, 150.0);
  }

  // The runs are listed beside the panels, so adding runs never takes height from the
  // axes (inside-plot legends shrank the loss plot to about 50 px with five runs and two panels);
  // the list has each run in its drawn colour, finds runs by name, and unticking hides a run in
  // every panel.
  void legendBesideThePanelsKeepsTheirHeight() {
    PlotPanels panels;
    panels.resize(1000, 640);
    panels.addPanel("lr");
    panels.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panels));
    panels.setSeries(runWithMetrics("seed1-mixer", 1e-5, 1));
    for (LossPlotWidget* p : panels.panels()) p->replotNow();
    const int loss_height_one = panels.firstPanel()->axisRect().height();
    const int lr_height_one = panels.panels()[1]->axisRect().height();
    QVERIFY2(loss_height_one > 150, qPrintable(QString("loss axes %1 px high").arg(loss_height_one)));
    for (int i = 2; i <= 8; ++i) {
      panels.setSeries(runWithMetrics(
          QString("seed%1-%2").arg(i % 2 + 1).arg(i % 2 ? "llama" : "mixer") + QString::number(i), 1e-5 * i, i));
    }
    for (LossPlotWidget* p : panels.panels()) p->replotNow();
    QCOMPARE(panels.firstPanel()->axisRect().height(), loss_height_one);
    QCOMPARE(panels.panels()[1]->axisRect().height(), lr_height_one);
    QVERIFY(panels.firstPanel()->legendRect().height() <= 0 || !panels.firstPanel()->legendRect().isValid());

    RunLegendList* legend = panels.legend();
    QCOMPARE(legend->runs().size(), 8);
    QCOMPARE(legend->runs().front(), QString("seed1-mixer"));
    auto* list = legend->findChild<QListWidget*>("legend-list");
    for (int i = 0; i < list->count(); ++i) {  // the swatch is the colour the panels draw
      const QString run = list->item(i)->data(Qt::UserRole).toString();
      QCOMPARE(list->item(i)->data(Qt::DecorationPropertyRole).value<QColor>(), panels.firstPanel()->drawnColour(run));
      QCOMPARE(panels.panels()[1]->drawnColour(run), panels.firstPanel()->drawnColour(run));
    }
    legend->setSearch("LLAMA");
    QCOMPARE(legend->listedRuns().size(), 3);  // runs 3, 5 and 7
    legend->setSearch("");
    QCOMPARE(legend->listedRuns().size(), 8);
    const QColor kept = panels.firstPanel()->drawnColour("seed1-mixer");
    legend->setRunHidden("seed1-mixer", true);
    QCOMPARE(panels.firstPanel()->graphCount(), 7 * 2);  // train and eval of the seven others
    QCOMPARE(panels.panels()[1]->graphCount(), 7);
    QVERIFY(!panels.firstPanel()->drawnColour("seed1-mixer").isValid());
    LossPlotWidget* later = panels.addPanel("router_entropy");  // a new panel hides it too
    QCOMPARE(later->graphCount(), 7);
    legend->setRunHidden("seed1-mixer", false);
    QCOMPARE(panels.firstPanel()->drawnColour("seed1-mixer"), kept);
    QCOMPARE(later->graphCount(), 8);
  }

  // Panels line up: the same x range (the union of what each draws: the losses end at step
  // 200, one run's lr goes on to step 400) and axes that start at the same pixel, whatever the
  // width of each panel's tick labels (0.0001 against 4.5).
  void panelsAlignTheirXAxes() {
    PlotPanels panels;
    panels.resize(1000, 700);
    panels.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panels));
    LossSeries late = runWithMetrics("late", 1e-5, 3);
    for (int step = 210; step <= 400; step += 10)
      late.appendMetric("lr", {double(step), step * 2048.0, step * 0.25, 1e-5, 0});
    panels.setSeries(late);
    panels.setSeries(runWithMetrics("mixer", 2e-5, 4));
    LossPlotWidget* lr = panels.addPanel("lr");
    for (LossPlotWidget* p : panels.panels()) p->replotNow();
    const auto loss_x = panels.firstPanel()->xRange();
    QCOMPARE(lr->xRange(), loss_x);
    QVERIFY2(loss_x.second >= 400 && loss_x.first <= 10,
             qPrintable(QString("shared x range %1..%2").arg(loss_x.first).arg(loss_x.second)));
    QCOMPARE(lr->axisRect().left(), panels.firstPanel()->axisRect().left());
    lr->setAxis(LossAxis::Tokens);  // another x axis: both panels again share one range
    for (LossPlotWidget* p : panels.panels()) p->replotNow();
    QCOMPARE(panels.firstPanel()->xRange(), lr->xRange());
    QVERIFY(lr->xRange().second >= 400 * 2048.0);
  }

  // A group whose third seed has just started: the mean goes on to the longest run's end (not cut
  // back to the new run's step 1), in the group's colour while every run contributes and faint,
  // out of the legend and named with its count, where fewer do.
  void meanOfSeedsGoesOnWhereFewerRunsReached() {
    PlotPanels panels;
    panels.resize(900, 600);
    panels.setGroupOf([](const QString& run, const QString&) { return run.section("-seed", 0, 0); });
    for (int seed = 1; seed <= 3; ++seed) {
      LossSeries s;
      s.run = QString("llama-seed%1").arg(seed);
      const int last = seed == 3 ? 1 : 10;  // seed 3 is one step in
      for (int step = 1; step <= last; ++step) s.appendTrain({double(step), step * 512.0, step * 0.5, double(seed), 0});
      panels.setSeries(s);
    }
    panels.setGroupSeeds(true);
    LossPlotWidget* plot = panels.firstPanel();
    auto* custom = plot->findChild<QCustomPlot*>();
    QCPGraph *full = nullptr, *fewer = nullptr;
    for (int i = 0; i < custom->graphCount(); ++i) {
      if (custom->graph(i)->name() == "llama (mean of 3) train") full = custom->graph(i);
      if (custom->graph(i)->name() == "llama (mean of 3): 2 of 3 runs reached here train") fewer = custom->graph(i);
    }
    QVERIFY(full != nullptr && fewer != nullptr);
    QCOMPARE(full->data()->size(), 2);  // step 1 (all three) and the join at step 2
    QCOMPARE(full->data()->at(0)->value, 2.0);
    QCOMPARE(fewer->data()->size(), 9);  // steps 2..10
    QCOMPARE(fewer->data()->at(8)->key, 10.0);
    QCOMPARE(fewer->data()->at(8)->value, 1.5);  // seeds 1 and 2
    QVERIFY(fewer->pen().color().alpha() < full->pen().color().alpha());
    QVERIFY(custom->legend->hasItemWithPlottable(full));
    QVERIFY(!custom->legend->hasItemWithPlottable(fewer));
    const QString readout = plot->readoutAcrossRuns(9);
    QVERIFY2(readout.contains("2 of 3 runs reached here train: 1.5"), qPrintable(readout));
  }

  // Run groups: "Mean of seeds" draws a group's runs as their mean over a min-max band in the
  // group's colour (interpolated where their steps differ), the legend's swatches follow, a run
  // hidden in the legend leaves the mean, and off draws every run again.
  void meanOfSeedsDrawsABand() {
    const CurveBand band = curveBand({{0, 1, 2}, {0, 2}}, {{0, 0, 0}, {2, 4}});
    QCOMPARE(band.x, (QVector<double>{0, 1, 2}));
    QCOMPARE(band.mean, (QVector<double>{1, 1.5, 2}));  // the second curve is 3 at x = 1
    QCOMPARE(band.low, (QVector<double>{0, 0, 0}));
    QCOMPARE(band.high, (QVector<double>{2, 3, 4}));
    QCOMPARE(band.count, (QVector<int>{2, 2, 2}));
    // A run that stopped (or is still training) at x = 1: beyond it the mean is the longer run's,
    // counted once; nothing is cut back to the shortest run. x values of either curve appear.
    const CurveBand ragged = curveBand({{0, 1}, {0, 0.5, 2, 3}}, {{4, 2}, {0, 1, 2, 6}});
    QCOMPARE(ragged.x, (QVector<double>{0, 0.5, 1, 2, 3}));
    QCOMPARE(ragged.count, (QVector<int>{2, 2, 2, 1, 1}));
    // x = 0.5: A is 3, B 1; x = 1: A 2, B 1 + (0.5 / 1.5) = 4/3; from x = 2 on, B alone.
    QCOMPARE(ragged.mean, (QVector<double>{2, 2, (2 + 4.0 / 3.0) / 2, 2, 6}));
    QCOMPARE(ragged.low, (QVector<double>{0, 1, 4.0 / 3.0, 2, 6}));
    QCOMPARE(ragged.high, (QVector<double>{4, 3, 2, 2, 6}));
    QVERIFY(curveBand({{}, {}}, {{}, {}}).x.isEmpty());

    PlotPanels panels;
    panels.resize(900, 600);
    panels.setGroupOf([](const QString& run, const QString& grouping) {
      if (grouping == "seed") return run.section("-seed", 0, 0);
      return QString(run.startsWith("mixer-seed3") || run == "llama" ? "lr = 1e-3" : "lr = 3e-4");  // "field:..."
    });
    for (int seed = 1; seed <= 3; ++seed) {
      LossSeries s;
      s.run = QString("mixer-seed%1").arg(seed);
      for (int step = 1; step <= 10; ++step) s.appendTrain({double(step), step * 512.0, step * 0.5, double(seed), 0});
      panels.setSeries(s);
    }
    LossSeries llama;
    llama.run = "llama";
    for (int step = 1; step <= 10; ++step) llama.appendTrain({double(step), step * 512.0, step * 0.5, 5.0, 0});
    panels.setSeries(llama);
    LossPlotWidget* plot = panels.firstPanel();
    QCOMPARE(plot->graphCount(), 4);
    auto* group_list = panels.legend()->findChild<QListWidget*>("legend-groups");
    QVERIFY(group_list != nullptr);
    QVERIFY(!group_list->isVisibleTo(&panels));  // each run: no groups listed
    panels.setGroupSeeds(true);
    QCOMPARE(plot->graphCount(), 4);  // the group's low and high edges and its mean, and llama
    // The band is an area filled between its edges in the group's colour, with no line on either edge.
    auto* custom = plot->findChild<QCustomPlot*>();
    QVERIFY(custom != nullptr);
    QCPGraph *low = nullptr, *high = nullptr;
    for (int i = 0; i < custom->graphCount(); ++i) {
      if (custom->graph(i)->channelFillGraph() != nullptr) {
        high = custom->graph(i);
        low = high->channelFillGraph();
      }
    }
    QVERIFY(low != nullptr && high != nullptr);
    QCOMPARE(low->pen().style(), Qt::NoPen);
    QCOMPARE(high->pen().style(), Qt::NoPen);
    QCOMPARE(high->brush().color().alpha(), 55);  // a train band
    QCOMPARE(low->data()->size(), 10);
    QCOMPARE(low->data()->at(4)->value, 1.0);  // each seed's loss is its seed number: 1 is the lowest
    QCOMPARE(high->data()->at(4)->value, 3.0);
    const QString readout = plot->readoutAcrossRuns(5);
    QVERIFY2(readout.split(QChar(10)).contains("mixer (mean of 3) train: 2") && readout.contains("llama train: 5"),
             qPrintable(readout));
    const QColor group_colour = plot->drawnColour("mixer (mean of 3)");
    QVERIFY(group_colour.isValid());
    auto* list = panels.legend()->findChild<QListWidget*>("legend-list");
    for (int i = 0; i < list->count(); ++i) {
      const QString run = list->item(i)->data(Qt::UserRole).toString();
      const QColor expected = run == "llama" ? plot->drawnColour("llama") : group_colour;
      QCOMPARE(list->item(i)->data(Qt::DecorationPropertyRole).value<QColor>(), expected);
    }
    // The group list names the group, its shown seeds and its colour; llama (one run) is no group.
    QCOMPARE(panels.legend()->groupEntries(), QStringList{"mixer (3 seeds)"});
    QVERIFY(group_list->isVisibleTo(&panels));
    QCOMPARE(group_list->item(0)->data(Qt::DecorationPropertyRole).value<QColor>(), group_colour);
    panels.legend()->setRunHidden("mixer-seed3", true);
    QVERIFY2(plot->readoutAcrossRuns(5).split(QChar(10)).contains("mixer (mean of 2) train: 1.5"),
             qPrintable(plot->readoutAcrossRuns(5)));
    QCOMPARE(panels.legend()->groupEntries(), QStringList{"mixer (2 seeds)"});
    panels.legend()->setRunHidden("mixer-seed2", true);  // one shown run left: drawn as itself
    QCOMPARE(panels.legend()->groupEntries(), QStringList());
    QVERIFY(!group_list->isVisibleTo(&panels));
    panels.legend()->setRunHidden("mixer-seed2", false);
    LossPlotWidget* lr = panels.addPanel("lr");  // a new panel is grouped too (no lr logged: nothing drawn)
    QCOMPARE(lr->graphCount(), 0);
    panels.setGroupSeeds(false);
    QCOMPARE(plot->graphCount(), 3);  // seed1, seed2 and llama (seed3 still hidden)
    QVERIFY(!plot->drawnColour("mixer (mean of 2)").isValid());

    // "Mean by <field>": the settings the app lists; the app's label of each run's value.
    panels.legend()->setRunHidden("mixer-seed3", false);
    auto* box = panels.findChild<QComboBox*>("group-runs");
    box->sizeHint();  // a box that sized itself once would keep this width
    panels.setGroupingFields({"train.learning_rate"});
    QCOMPARE(box->count(), 3);
    QCOMPARE(box->itemText(2), QString("Mean by train.learning_rate"));
    QVERIFY2(box->sizeHint().width() > box->fontMetrics().horizontalAdvance(box->itemText(2)),
             "the grouping box does not grow to show its longest entry");
    panels.setGrouping("field:train.learning_rate");
    const QStringList lines = plot->readoutAcrossRuns(5).split(QChar(10));
    QVERIFY2(lines.contains("lr = 3e-4 (mean of 2) train: 1.5") && lines.contains("lr = 1e-3 (mean of 2) train: 4"),
             qPrintable(lines.join(" | ")));
    QCOMPARE(panels.legend()->groupEntries(), (QStringList{"lr = 1e-3 (2 runs)", "lr = 3e-4 (2 runs)"}));
    panels.setGroupingFields({});  // the field no longer differs: every run by itself again
    QCOMPARE(panels.grouping(), QString());
    QCOMPARE(panels.legend()->groupEntries(), QStringList());
    QCOMPARE(plot->graphCount(), 4);
  }

  // Pin: a pinned run is listed first in bold and drawn over the others with lines twice as
  // thick, in every panel (a later one too); unpinned, it goes back to its place.
  // Colour by group: the panels, the legend and the Scaling tab ask one colour registry, so a seed
  // group drawn in the Curves panels has the same colour in the Scaling tab (keyed by colour_key),
  // and a second panel draws each run in the first panel's colour.
  void groupsKeepTheirColourAcrossTabs() {
    PlotPanels panels;
    panels.resize(900, 600);
    panels.setGroupOf([](const QString& run, const QString&) { return run.section("-seed", 0, 0); });
    for (const QString run : {"llama-seed1", "llama-seed2", "mixer-seed1", "mixer-seed2"}) {
      LossSeries s;
      s.run = run;
      for (int step = 1; step <= 5; ++step) s.appendTrain({double(step), step * 512.0, 3.0 - 0.1 * step, 0, 0});
      panels.setSeries(s);
    }
    panels.setGroupSeeds(true);
    LossPlotWidget* plot = panels.firstPanel();
    const QColor llama = plot->drawnColour("llama (mean of 2)"), mixer = plot->drawnColour("mixer (mean of 2)");
    QVERIFY(llama.isValid() && mixer.isValid() && llama != mixer);
    LossPlotWidget* second = panels.addPanel("loss");
    QCOMPARE(second->runColour("mixer-seed2"), plot->runColour("mixer-seed2"));

    ComputeFrontierView scaling;
    scaling.setSeriesColours(panels.seriesColours());
    FrontierGroup first, other;  // the Scaling tab lists the groups in another order
    first.label = "mixer D=256";
    first.colour_key = "mixer";
    first.points = {{1e12, 3.0}, {2e12, 2.8}};
    other.label = "llama";
    other.colour_key = "llama";
    other.points = {{1e12, 3.1}};
    scaling.setGroups({first, other});
    QCOMPARE(scaling.groupColour(0), mixer);
    QCOMPARE(scaling.groupColour(1), llama);
  }

  void pinnedRunsComeFirstAndDrawThicker() {
    PlotPanels panels;
    panels.resize(900, 600);
    for (const char* run : {"a", "b", "c"}) panels.setSeries(runWithMetrics(run, 1e-5, 7));
    RunLegendList* legend = panels.legend();
    const double normal = panels.firstPanel()->drawnLineWidth("c");
    QVERIFY(normal > 0);
    legend->setRunPinned("c", true);
    QCOMPARE(legend->runs(), (QStringList{"c", "a", "b"}));
    QCOMPARE(legend->pinnedRuns(), QSet<QString>{"c"});
    QCOMPARE(panels.firstPanel()->drawnLineWidth("c"), 2 * normal);
    QCOMPARE(panels.firstPanel()->drawnLineWidth("a"), normal);
    LossPlotWidget* lr = panels.addPanel("lr");
    QVERIFY(lr->drawnLineWidth("c") > lr->drawnLineWidth("b"));
    legend->setRunPinned("c", false);
    QCOMPARE(legend->runs(), (QStringList{"a", "b", "c"}));
    QCOMPARE(panels.firstPanel()->drawnLineWidth("c"), normal);
    legend->setRunHidden("b", true);  // a hidden run draws no line, nor does one never added
    QCOMPARE(panels.firstPanel()->drawnLineWidth("b"), 0.0);
    QCOMPARE(panels.firstPanel()->drawnLineWidth("no-such-run"), 0.0);
  }

  void panelsShareRunsAndTheXAxis() {
    PlotPanels panels;
    panels.resize(900, 900);
    panels.setSeries(runWithMetrics("mixer", 1e-5, 1));
    LossPlotWidget* lr = panels.addPanel("lr");
    QCOMPARE(panels.panels().size(), 2);
    QCOMPARE(lr->graphCount(), 1);  // a new panel starts with the runs already shown
    panels.setSeries(runWithMetrics("llama", 2e-5, 2));
    QCOMPARE(lr->graphCount(), 2);
    QCOMPARE(panels.firstPanel()->graphCount(), 4);
    lr->setAxis(LossAxis::WallSeconds);
    QCOMPARE(panels.firstPanel()->axis(), LossAxis::WallSeconds);
    QCOMPARE(panels.panelMetrics(), (QStringList{kLossMetric, "lr"}));
    QSignalSpy fork(&panels, &PlotPanels::forkRequested);
    Q_EMIT lr->forkRequested("llama", 40);
    QCOMPARE(fork.count(), 1);
    panels.removeRun("llama");
    QCOMPARE(lr->graphCount(), 1);
    panels.closePanel(panels.firstPanel());  // the loss panel stays
    QCOMPARE(panels.panels().size(), 2);
    panels.setPanelMetrics({kLossMetric, "grad_norm", "router_entropy"});
    QCOMPARE(panels.panelMetrics(), (QStringList{kLossMetric, "grad_norm", "router_entropy"}));
    panels.closePanel(panels.panels()[1]);
    QCOMPARE(panels.panelMetrics(), (QStringList{kLossMetric, "router_entropy"}));
  }

  // Appended points reach every panel, a new panel starts from the appended whole, and a run not
  // given yet starts with its first appended points.
  void appendedPointsReachEveryPanel() {
    PlotPanels panels;
    panels.resize(900, 900);
    LossSeries mixer = runWithMetrics("mixer", 1e-5, 1);
    const int first_points = static_cast<int>(mixer.train.size());
    panels.setSeries(mixer);
    LossPlotWidget* lr = panels.addPanel("lr");
    LossSeries more;
    more.run = "mixer";
    const double last_step = mixer.train.back().step;
    for (int k = 1; k <= 5; ++k) {
      more.train.push_back({last_step + k, 0, 0, 3.0, 0});
      more.metrics["lr"].push_back({last_step + k, 0, 0, 5e-6, 0});
    }
    QVERIFY(panels.hasRun("mixer"));
    panels.appendPoints(more);
    QCOMPARE(panels.firstPanel()->pointCount("mixer", false), first_points + 5);
    QCOMPARE(lr->drawnPointCount("mixer", false), static_cast<int>(mixer.metrics["lr"].size()) + 5);
    LossPlotWidget* again = panels.addPanel(kLossMetric);
    QCOMPARE(again->pointCount("mixer", false), first_points + 5);
    QVERIFY(!panels.hasRun("llama"));
    LossSeries llama;
    llama.run = "llama";
    llama.train.push_back({1, 0, 0, 9.0, 0});
    panels.appendPoints(llama);
    QVERIFY(panels.hasRun("llama"));
    QCOMPARE(panels.firstPanel()->pointCount("llama", false), 1);
    QCOMPARE(again->pointCount("llama", false), 1);
  }
};

QTEST_MAIN(TestPlotPanels)
#include "test_plot_panels.moc"
