// Loss plot widget tests: smoothing and downsampling arithmetic, resumed-run series from a growing
// metrics file, x-axis switching (FLOPs included), log axes, hover readout and SVG/PNG/CSV exports
// (a legend and line-style key in every figure, the CSV as drawn).
// Pure widget test: links mixerlab_widgets only (no torch, no core).
#include <QtTest/QtTest>

#include <qcustomplot.h>
#include <QApplication>
#include <QComboBox>
#include <QFile>
#include <QImage>
#include <QPainter>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <cmath>

#include "tests/loss_plot_fixture.h"
#include "widgets/plots/curve_processing.h"
#include "widgets/plots/loss_plot_widget.h"
#include "widgets/plots/plot_export.h"

using namespace mixerlab::widgets;
using namespace mixerlab::widgets::testing;

namespace {
QCustomPlot* innerPlot(LossPlotWidget& w) { return w.findChild<QCustomPlot*>(); }
}  // namespace

class TestLossPlot : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void emaIsBiasCorrected() {
    const QVector<double> ys{4, 2, 3};
    const QVector<double> s = emaSmooth(ys, 0.9);
    QCOMPARE(s.size(), 3);
    QCOMPARE(s[0], 4.0);  // bias correction: the first smoothed value is the first raw value
    QVERIFY(std::abs(s[1] - (0.9 * 0.4 + 0.1 * 2) / (1 - 0.81)) < 1e-12);
    QVERIFY(std::abs(s[2] - ((0.9 * 0.56 + 0.1 * 3) / (1 - 0.729))) < 1e-12);
    QCOMPARE(emaSmooth(ys, 0.0), ys);  // b = 0 is no smoothing
    const QVector<double> with_nan = emaSmooth({1, NAN, 3}, 0.5);
    QVERIFY(std::isnan(with_nan[1]));
    QVERIFY(std::abs(with_nan[2] - (0.5 * 0.5 + 0.5 * 3) / 0.75) < 1e-12);  // NaN did not disturb the state
  }

  void movingAverageValues() {
    const QVector<double> ys{1, 2, 3, 4, 5};
    QCOMPARE(movingAverage(ys, 3, true), (QVector<double>{1.5, 2, 3, 4, 4.5}));
    QCOMPARE(movingAverage(ys, 3, false), (QVector<double>{1, 1.5, 2, 3, 4}));
    QCOMPARE(movingAverage(ys, 4, true), (QVector<double>{1.5, 2, 2.5, 3.5, 4}));
    QCOMPARE(movingAverage(ys, 1, true), ys);
    Smoothing s;
    s.kind = SmoothingKind::MovingAverage;
    s.window_points = 3;
    s.centred = false;
    QCOMPARE(smoothed({1, 2, 3, 4, 5}, ys, s), (QVector<double>{1, 1.5, 2, 3, 4}));
  }

  // The EMA weight applied per logged point, so logging every 10 steps made the
  // smoothed line lag far behind (5.2 against a raw 4.5 at step 100). It applies per step now: the
  // same run logged every step or every 10 steps smooths to the same value, close to the raw loss.
  void emaIsPerStepNotPerPoint() {
    auto loss = [](int step) { return 4.5 + 1.5 * std::exp(-step / 15.0); };
    QVector<double> every_step, every_step_at, every_ten, every_ten_at;
    for (int step = 1; step <= 100; ++step) {
      every_step << loss(step), every_step_at << step;
      if (step % 10 == 0) every_ten << loss(step), every_ten_at << step;
    }
    Smoothing s;
    s.kind = SmoothingKind::Ema;
    s.ema_weight = 0.9;
    const double dense = smoothed(every_step_at, every_step, s).back();
    const double sparse = smoothed(every_ten_at, every_ten, s).back();
    qInfo("smoothed at step 100: logging every step %.4f, every 10 steps %.4f, raw %.4f", dense, sparse, loss(100));
    QVERIFY2(std::abs(dense - sparse) < 0.01, qPrintable(QString("%1 vs %2").arg(dense).arg(sparse)));
    QVERIFY(std::abs(sparse - loss(100)) < 0.05);
    QCOMPARE(emaSmoothOverSteps({10, 20}, {4, 2}, 0.9)[0], 4.0);  // debiased: the first value is the first point
    const double b10 = std::pow(0.9, 10);
    QVERIFY(std::abs(emaSmoothOverSteps({10, 20}, {4, 2}, 0.9)[1] - (b10 * 4 + 2) / (b10 + 1)) < 1e-12);
  }

  void downsamplingKeepsSpikesAndBoundsSize() {
    const int n = 100000, buckets = 800;
    QVector<double> xs(n), ys(n);
    for (int i = 0; i < n; ++i) xs[i] = i, ys[i] = 3.0 + 0.1 * std::sin(i * 0.01);
    ys[54321] = 50.0;  // a loss spike
    ys[77777] = -3.0;  // and a dip
    ys[99990] = 60.0;  // a spike late in the last bucket, after that bucket's minimum
    const QVector<int> keep = minMaxDownsample(xs, ys, buckets);
    QVERIFY(keep.size() <= 2 * buckets + 2);
    QVERIFY(keep.size() > 3 * buckets / 2);  // both the min and the max of (almost) every bucket
    for (int i = 1; i < keep.size(); ++i) QVERIFY(keep[i] > keep[i - 1]);  // x order, no duplicates
    QVERIFY(keep.contains(54321));
    QVERIFY(keep.contains(77777));
    QVERIFY(keep.contains(99990));
    // A visible sub-range: its own buckets plus one neighbour each side.
    const QVector<int> part = minMaxDownsample(xs, ys, 100, 50000, 60000);
    QVERIFY(part.size() <= 2 * 100 + 2);
    QCOMPARE(part.front(), 49999);
    QCOMPARE(part.back(), 60001);
    QVERIFY(part.contains(54321));
    QVERIFY(minMaxDownsample({}, {}, 10).isEmpty());
  }

  void widgetDownsamplesLongCurves() {
    LossPlotWidget w;
    QVERIFY(showPlot(w));
    LossSeries s;
    s.run = "long";
    for (int i = 1; i <= 100000; ++i) s.appendTrain({double(i), 0, 0, i == 54321 ? 50.0 : 3.0});
    w.setSeries(s);
    QCOMPARE(w.pointCount("long", false), 100000);
    const int drawn = w.drawnPointCount("long", false);
    QVERIFY2(drawn > 0 && drawn <= 2 * 900 + 2, qPrintable(QString::number(drawn)));
    bool found = false;
    QCPRange y = innerPlot(w)->graph(0)->getValueRange(found);
    QVERIFY(found);
    QCOMPARE(y.upper, 50.0);  // the spike is still drawn
  }

  void emptyPlotFillsTheWidget() {
    // A project whose runs have not started yet: the axes still span the panel (the empty legend
    // row once squeezed them to a sliver in the corner).
    LossPlotWidget w;
    QVERIFY(showPlot(w));
    w.replotNow();
    QVERIFY2(w.axisRect().width() > 600, qPrintable(QString::number(w.axisRect().width())));
    w.setSeries(makeRun("mixer", 50, 4.0, 6e6, 1));
    w.replotNow();
    QVERIFY(w.legendRect().height() > 0);
    w.removeRun("mixer");
    w.replotNow();
    QVERIFY2(w.axisRect().width() > 600, qPrintable(QString::number(w.axisRect().width())));
  }

  void userViewSurvivesLiveUpdatesUntilReset() {
    LossPlotWidget w;
    QVERIFY(showPlot(w));
    LossSeries s = makeRun("mixer", 200, 4.0, 6e6, 1);
    w.setSeries(s);
    w.replotNow();
    QCustomPlot* plot = innerPlot(w);
    QCOMPARE(plot->xAxis->range().upper, 200.0);
    const QPoint from = plot->axisRect()->center();
    QTest::mouseClick(plot, Qt::LeftButton, Qt::NoModifier, from);  // a click is not a pan
    QCOMPARE(plot->xAxis->range().upper, 200.0);
    // Drag the plot 200 px to the left: the view moves right.
    QTest::mousePress(plot, Qt::LeftButton, Qt::NoModifier, from);
    QMouseEvent drag(QEvent::MouseMove, from - QPoint(200, 0), plot->mapToGlobal(from - QPoint(200, 0)), Qt::LeftButton,
                     Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(plot, &drag);
    QTest::mouseRelease(plot, Qt::LeftButton, Qt::NoModifier, from - QPoint(200, 0));
    const double panned_upper = plot->xAxis->range().upper;
    QVERIFY2(panned_upper > 200.0, qPrintable(QString::number(panned_upper)));
    for (int step = 201; step <= 260; ++step) s.appendTrain({double(step), 0, 0, 4.0, 0});
    w.setSeries(s);  // a live update keeps the user's view
    QCOMPARE(plot->xAxis->range().upper, panned_upper);
    w.resetView();
    QCOMPARE(plot->xAxis->range().upper, 260.0);
    // Another project (forgetRuns) starts from its own data's range, not the last one's zoom.
    QTest::mousePress(plot, Qt::LeftButton, Qt::NoModifier, from);
    QApplication::sendEvent(plot, &drag);
    QTest::mouseRelease(plot, Qt::LeftButton, Qt::NoModifier, from - QPoint(200, 0));
    QVERIFY(plot->xAxis->range().upper > 260.0);
    w.forgetRuns();
    w.setSeries(makeRun("llama", 40, 4.0, 6e6, 1));
    QCOMPARE(plot->xAxis->range().upper, 40.0);
  }

  void growingMetricsFileDrawsOneContinuousLine() {
    QTemporaryDir dir;
    const QString path = dir.filePath("metrics.jsonl");
    LossSeries series;
    series.run = "mixer";
    Tail tail{path};
    LossPlotWidget w;
    // The writer is mid-way through the record of step 31 when the viewer polls.
    const QByteArray line31 = metricsLine(31, 0);
    appendLines(path, 1, 30, 0);
    appendBytes(path, line31.left(20));
    tail.poll(series);
    QCOMPARE(series.train.size(), 30);
    appendBytes(path, line31.mid(20));
    appendLines(path, 32, 60, 0);
    tail.poll(series);
    QCOMPARE(series.train.size(), 60);
    w.setSeries(series);
    // The run dies and resumes from its checkpoint at step 40, re-logging 41..60 with other losses.
    appendLines(path, 41, 80, 1.0);
    tail.poll(series);
    w.setSeries(series);
    QCOMPARE(series.train.size(), 80);
    for (int i = 0; i < series.train.size(); ++i) QCOMPARE(series.train[i].step, double(i + 1));
    QCOMPARE(series.train[49].loss, 5.0 - 50 * 0.01 + 1.0);  // the re-logged value replaced the old one
    QCOMPARE(w.graphCount(), 1);
    QCOMPARE(w.drawnPointCount("mixer", false), 80);
    QCOMPARE(innerPlot(w)->graph(0)->dataCount(), 80);
  }

  // Live updates append what arrived: a widget fed the points in pieces, a resumed run's re-logged
  // steps among them, and a widget given the whole series draw the same curves, and a metric that
  // first appears in an appended piece joins the metric picker.
  void appendedPointsDrawAsTheWholeSeries() {
    LossSeries whole, first, second;
    whole.run = first.run = second.run = "mixer";
    for (int step = 1; step <= 50; ++step)
      first.train.push_back({double(step), step * 100.0, step * 0.5, 5.0 - step * 0.01, 0});
    first.eval.push_back({25, 2500, 12.5, 4.9, 0});
    // The run resumed from step 40: steps 41..70 come again, with other losses, and lr appears.
    for (int step = 41; step <= 70; ++step) {
      second.train.push_back({double(step), step * 100.0, step * 0.5, 6.0 - step * 0.01, 0});
      second.metrics["lr"].push_back({double(step), step * 100.0, step * 0.5, 1e-3, 0});
    }
    second.eval.push_back({50, 5000, 25, 4.7, 0});
    whole.append(first);
    whole.append(second);
    QCOMPARE(whole.train.size(), 70);
    QCOMPARE(whole.train[45].loss, 6.0 - 46 * 0.01);  // step 46 as re-logged
    QCOMPARE(whole.eval.size(), 2);
    LossPlotWidget pieces, at_once;
    pieces.appendPoints(first);  // a run not shown yet starts with its first points
    QCOMPARE(pieces.pointCount("mixer", false), 50);
    QVERIFY(!pieces.availableMetrics().contains("lr"));
    pieces.appendPoints(second);
    at_once.setSeries(whole);
    QCOMPARE(pieces.pointCount("mixer", false), 70);
    QCOMPARE(pieces.pointCount("mixer", true), 2);
    QCOMPARE(pieces.drawnPointCount("mixer", false), at_once.drawnPointCount("mixer", false));
    QCOMPARE(innerPlot(pieces)->graph(0)->dataCount(), 70);
    for (int i = 0; i < 70; ++i) {
      QCOMPARE(innerPlot(pieces)->graph(0)->data()->at(i)->value, innerPlot(at_once)->graph(0)->data()->at(i)->value);
    }
    QVERIFY(pieces.availableMetrics().contains("lr"));
    pieces.setMetric("lr");
    QCOMPARE(pieces.drawnPointCount("mixer", false), 30);
  }

  void axisSwitchingIncludesFlops() {
    LossPlotWidget w;
    QVERIFY(showPlot(w));
    LossSeries s = makeRun("mixer", 200, 4.0, 6e6, 1);
    s.train.prepend({0, 0, 0, 8.0, 0});  // a step-0 point: skipped on a log x axis
    w.setSeries(s);
    const auto* combo = w.findChild<QComboBox*>("axis-box");
    QVERIFY(combo);
    QCOMPARE(combo->count(), 4);
    QCOMPARE(combo->itemText(3), QString("FLOPs"));
    const LossPoint last = s.train.back();
    const struct {
      LossAxis axis;
      double x;
    } cases[] = {{LossAxis::Step, last.step},
                 {LossAxis::Tokens, last.tokens},
                 {LossAxis::WallSeconds, last.wall_s},
                 {LossAxis::Flops, last.flops}};
    for (const auto& c : cases) {
      w.setAxis(c.axis);
      w.replotNow();
      QVERIFY(innerPlot(w)->xAxis->label().startsWith(lossAxisLabel(c.axis)));
      QCOMPARE(innerPlot(w)->xAxis->range().upper, c.x);
      const QPointF px = w.dataToPixel(c.x, last.loss);
      const QString text = w.readoutAt(px.x(), px.y());
      QVERIFY2(text.startsWith("mixer train: " + lossAxisLabel(c.axis) + " = "), qPrintable(text));
      QVERIFY2(text.endsWith(QString::number(last.loss, 'f', 4)), qPrintable(text));
    }
    QVERIFY(w.readoutAt(0, 0).contains("mixer"));  // always the nearest point
    QCOMPARE(combo->currentIndex(), 3);
    QCOMPARE(w.drawnPointCount("mixer", false), 201);
    w.setLogX(true);
    QCOMPARE(w.drawnPointCount("mixer", false), 200);  // x = 0 is skipped on a log axis
    QCOMPARE(innerPlot(w)->xAxis->scaleType(), QCPAxis::stLogarithmic);
    w.setLogY(true);
    QCOMPARE(innerPlot(w)->yAxis->scaleType(), QCPAxis::stLogarithmic);
    w.setLogX(false);
    QCOMPARE(w.drawnPointCount("mixer", false), 201);
  }

  void smoothingDrawsFaintRawBehindSmoothed() {
    LossPlotWidget w;
    QVERIFY(showPlot(w));
    w.setSeries(makeRun("mixer", 300, 4.0, 6e6, 1));
    QCOMPARE(w.graphCount(), 2);  // train + eval
    Smoothing sm;
    sm.kind = SmoothingKind::Ema;
    sm.ema_weight = 0.95;
    w.setSmoothing(sm);
    QCOMPARE(w.graphCount(), 3);  // faint raw train + smoothed train + eval
    QCustomPlot* plot = innerPlot(w);
    QCOMPARE(plot->graph(0)->pen().color().alpha(), 60);
    QCOMPARE(plot->graph(1)->pen().color().alpha(), 255);
    QCOMPARE(plot->graph(1)->name(), QString("mixer train"));
    QCOMPARE(plot->legend->itemCount(), 2);  // the faint raw curve stays out of the legend
    w.replotNow();
    const double y1 = plot->graph(1)->data()->at(150)->value, x1 = plot->graph(1)->data()->at(150)->key;
    const QPointF px = w.dataToPixel(x1, y1);
    QVERIFY2(w.readoutAt(px.x(), px.y()).contains("train (smoothed)"), qPrintable(w.readoutAt(px.x(), px.y())));
    sm.kind = SmoothingKind::None;
    w.setSmoothing(sm);
    QCOMPARE(w.graphCount(), 2);
  }

  // Restored assignments replace every earlier one: the next new name takes the slot after the
  // highest restored one (not after what was handed out before), and a negative slot is skipped.
  void restoredColoursContinueAfterTheHighestKeptSlot() {
    SeriesColours colours;
    int assigned = 0;
    colours.setOnAssigned([&assigned] { ++assigned; });
    for (const char* name : {"a", "b", "c", "d", "e"}) colours.colour(name);
    QCOMPARE(assigned, 5);
    colours.restore({{"kept", 1}, {"also kept", 0}, {"negative", -1}});
    QCOMPARE(assigned, 5);  // restoring assigns nothing new
    QCOMPARE(colours.colour("kept"), SeriesColours::paletteColour(1));
    QCOMPARE(colours.colour("a"), SeriesColours::paletteColour(2));         // forgotten: a new name now
    QCOMPARE(colours.colour("negative"), SeriesColours::paletteColour(3));  // never restored
    QCOMPARE(assigned, 7);
    QCOMPARE(colours.assignments(), (QHash<QString, int>{{"kept", 1}, {"also kept", 0}, {"a", 2}, {"negative", 3}}));
  }

  // Colours were given by position among the shown runs, so hiding one recoloured
  // the others. A run keeps its colour; forgetting the runs (another project) frees the colours.
  void runColoursAreStable() {
    LossPlotWidget plot;
    auto series = [](const QString& run) {
      LossSeries s;
      s.run = run;
      for (int step = 1; step <= 5; ++step) s.appendTrain({double(step), 0, 0, 5.0 - step * 0.1});
      return s;
    };
    for (const char* run : {"alpha", "beta", "gamma"}) plot.setSeries(series(run));
    plot.replotNow();
    const QColor alpha = plot.drawnColour("alpha"), beta = plot.drawnColour("beta"), gamma = plot.drawnColour("gamma");
    QVERIFY(alpha != beta && beta != gamma && alpha != gamma);
    plot.removeRun("alpha");
    plot.replotNow();
    QCOMPARE(plot.drawnColour("beta"), beta);
    QCOMPARE(plot.drawnColour("gamma"), gamma);
    plot.setSeries(series("alpha"));
    plot.setSeries(series("delta"));
    plot.replotNow();
    QCOMPARE(plot.drawnColour("alpha"), alpha);
    QVERIFY(plot.drawnColour("delta") != alpha && plot.drawnColour("delta") != beta &&
            plot.drawnColour("delta") != gamma);
    plot.forgetRuns();
    plot.setSeries(series("gamma"));
    plot.replotNow();
    QCOMPARE(plot.drawnColour("gamma"), alpha);  // the first colour again
    // An export name typed without an extension gets the format's.
    const QString dir = QDir::tempPath() + "/mixerlab-test-loss-plot-suffix";
    QDir().mkpath(dir);
    QVERIFY(plot.exportPng(dir + "/no-extension", 320, 200));
    QVERIFY(plot.exportCsv(dir + "/table"));
    QVERIFY(QFileInfo::exists(dir + "/no-extension.png") && !QFileInfo::exists(dir + "/no-extension"));
    QVERIFY(QFileInfo::exists(dir + "/table.csv"));
  }

  // A figure is read without the workbench: a panel that leaves its runs to the side list still
  // exports its legend, the loss axis names the line styles, and the CSV holds the curves as drawn
  // (a group's mean and band with its run count; a hidden run left out), not the runs' raw points.
  void exportsHoldWhatIsDrawnWithALegend() {
    LossPlotWidget w;
    QVERIFY(showPlot(w));
    w.setLegendShown(false);
    const LossSeries a = makeRun("seed-a", 100, 4.0, 1e6, 1), b = makeRun("seed-b", 100, 4.5, 1e6, 2),
                     c = makeRun("other", 100, 3.0, 1e6, 3);
    w.setSeries(a);
    w.setSeries(b);
    w.setSeries(c);
    w.setRunGroups({{"seed-a", "mixer"}, {"seed-b", "mixer"}});
    w.setHiddenRuns({"other"});
    w.replotNow();
    QCustomPlot* plot = innerPlot(w);
    QVERIFY(plot->xAxis->label().startsWith("step") && plot->xAxis->label().contains("solid: train, dashed: eval"));
    QVERIFY(!plot->legend->visible());

    QTemporaryDir dir;
    QVERIFY(w.exportSvg(dir.filePath("fig.svg"), 900, 560));
    QFile svg(dir.filePath("fig.svg"));
    QVERIFY(svg.open(QIODevice::ReadOnly));
    const QByteArray svg_text = svg.readAll();
    QVERIFY(svg_text.contains("mixer (mean of 2) train"));
    QVERIFY(svg_text.contains("mixer (mean of 2) eval"));
    QVERIFY(svg_text.contains("solid: train, dashed: eval"));
    QVERIFY(!svg_text.contains("other train"));
    QVERIFY(!plot->legend->visible());  // the panel itself is as it was
    QVERIFY(w.exportPng(dir.filePath("fig"), 700, 400));
    QCOMPARE(QImage(dir.filePath("fig.png")).size(), QSize(700, 400));
    QVERIFY(!plot->legend->visible());

    QVERIFY(w.exportCsv(dir.filePath("fig")));
    QFile csv(dir.filePath("fig.csv"));
    QVERIFY(csv.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(csv.readAll()).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.front(), QString("curve,series,kind,step,loss,band_low,band_high,runs"));
    QCOMPARE(lines.size(), 1 + 100 + 2);  // the mean train curve (100 steps) and eval curve (2 evals)
    const double lo = std::min(a.train[0].loss, b.train[0].loss), hi = std::max(a.train[0].loss, b.train[0].loss);
    QCOMPARE(lines[1], QString("mixer (mean of 2),train,mean,1,%1,%2,%3,2")
                           .arg(QString::number((a.train[0].loss + b.train[0].loss) / 2, 'g', 10))
                           .arg(QString::number(lo, 'g', 10))
                           .arg(QString::number(hi, 'g', 10)));
    QVERIFY(lines.last().startsWith("mixer (mean of 2),eval,mean,100,"));
    for (const QString& line : lines)
      QVERIFY2(!line.startsWith("other") && !line.startsWith("seed-"), qPrintable(line));
    w.setAxis(LossAxis::Tokens);
    QVERIFY(w.drawnCsv().startsWith("curve,series,kind,tokens,loss,"));
    w.setMetric("lr");  // a metric without a line-style key
    QCOMPARE(plot->xAxis->label(), QString("tokens"));
  }

  void exportsAndScreenshot() {
    QDir().mkpath(QDir::tempPath() + "/mixerlab-test-loss-plot");
    QTemporaryDir dir;
    LossPlotWidget w;
    w.resize(1100, 650);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    const LossSeries a = makeRun("mixer", 300, 4.0, 6 * 3.2e6, 1), b = makeRun("transformer", 300, 4.3, 6 * 1.6e6, 2);
    w.setSeries(a);
    w.setSeries(b);
    Smoothing sm;
    sm.kind = SmoothingKind::Ema;
    sm.ema_weight = 0.9;
    w.setSmoothing(sm);
    w.replotNow();
    // Hover over the smoothed mixer curve at step 120.
    QCustomPlot* plot = innerPlot(w);
    const QPointF px = w.dataToPixel(120, plot->graph(1)->data()->at(119)->value);
    QMouseEvent move(QEvent::MouseMove, px, plot->mapToGlobal(px), Qt::NoButton, Qt::NoButton, Qt::NoModifier);
    QApplication::sendEvent(plot, &move);
    w.replotNow();
    QCOMPARE(plot->itemCount(), 2);  // the readout text and the marker on the hovered point
    QVERIFY(plot->item(0)->visible() && plot->item(1)->visible());
    QVERIFY(w.grab().save(QDir::tempPath() + "/mixerlab-test-loss-plot/loss_plot.png"));

    const QString csv_path = dir.filePath("loss.csv"), svg_path = dir.filePath("loss.svg"),
                  png_path = dir.filePath("loss.png");
    QVERIFY(w.exportCsv(csv_path));
    QFile csv(csv_path);
    QVERIFY(csv.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(csv.readAll()).split('\n', Qt::SkipEmptyParts);
    // What is drawn: each run's raw and smoothed train curve and its eval curve, on the x axis shown.
    QCOMPARE(lines.front(), QString("curve,series,kind,step,loss,band_low,band_high,runs"));
    QCOMPARE(lines.size(), 1 + 2 * (300 + 300 + 6));
    QCOMPARE(lines[1], QString("mixer,train,raw,1,%1,,,").arg(QString::number(a.train[0].loss, 'g', 10)));
    QVERIFY(lines.contains(QString("mixer,train,smoothed,1,%1,,,").arg(QString::number(a.train[0].loss, 'g', 10))));
    QVERIFY(
        lines.contains(QString("transformer,eval,raw,300,%1,,,").arg(QString::number(b.eval.back().loss, 'g', 10))));

    QVERIFY(w.exportSvg(svg_path, 900, 560));
    QFile svg(svg_path);
    QVERIFY(svg.open(QIODevice::ReadOnly));
    const QByteArray svg_text = svg.readAll();
    QVERIFY(svg_text.contains("<svg"));
    QVERIFY(svg_text.contains("<polyline") || svg_text.contains("<path"));
    QVERIFY(svg_text.contains("mixer train"));
    QVERIFY(svg_text.contains("transformer eval"));
    QVERIFY(svg_text.contains("cross-entropy loss"));
    QVERIFY(w.exportPng(png_path, 800, 500));
    QVERIFY(QFileInfo(png_path).size() > 10000);
    QImage image(png_path);
    QCOMPARE(image.size(), QSize(800, 500));
    QDir().mkpath(QDir::tempPath() + "/mixerlab-test-loss-plot");
    QVERIFY(w.exportPng(QDir::tempPath() + "/mixerlab-test-loss-plot/loss_export.png"));
    QVERIFY(w.exportSvg(QDir::tempPath() + "/mixerlab-test-loss-plot/loss_export.svg"));
    QVERIFY(w.saveImage(dir.filePath("legacy.png")));
    // The SVG renders back to a picture (saved to look at).
    QSvgRenderer renderer(svg_path);
    QVERIFY(renderer.isValid());
    QImage rendered(900, 560, QImage::Format_ARGB32);
    rendered.fill(Qt::white);
    QPainter painter(&rendered);
    renderer.render(&painter);
    painter.end();
    QVERIFY(rendered.save(QDir::tempPath() + "/mixerlab-test-loss-plot/svg_render.png"));

    // Equal-compute view on log-log axes with a trailing moving average, saved to look at.
    w.setAxis(LossAxis::Flops);
    QVERIFY(!plot->item(0)->visible() && !plot->item(1)->visible());  // no stale readout after a redraw
    w.setLogX(true);
    w.setLogY(true);
    sm.kind = SmoothingKind::MovingAverage;
    sm.window_points = 20;
    sm.centred = false;
    w.setSmoothing(sm);
    w.replotNow();
    QDir().mkpath(QDir::tempPath() + "/mixerlab-test-loss-plot");
    QVERIFY(w.grab().save(QDir::tempPath() + "/mixerlab-test-loss-plot/loss_plot_flops_log.png"));
  }
};

QTEST_MAIN(TestLossPlot)
#include "test_loss_plot.moc"
