// Every plot view exports what it draws: the Scaling plot and Inspect's three charts write SVG
// (with the series named, a legend where the screen leaves it to a table), PNG at the plot's size
// and a CSV whose rows are the drawn values; names typed without an extension get one; a folder
// that cannot be written is reported, not ignored. Links mixerlab_widgets only.
#include <QtTest/QtTest>

#include <qcustomplot.h>
#include <QFile>
#include <QImage>
#include <QTemporaryDir>
#include <QToolButton>
#include <cmath>

#include "widgets/inversion/inversion_heatmap.h"
#include "widgets/inversion/inversion_layer_chart.h"
#include "widgets/inversion/inversion_loss_plot.h"
#include "widgets/plots/compute_frontier_view.h"
#include "widgets/plots/plot_export_button.h"

using namespace mixerlab::widgets;

namespace {
QString readAll(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}
QStringList csvLines(const QString& path) { return readAll(path).split('\n', Qt::SkipEmptyParts); }

// Writes all three formats through `writers` into `dir` as <stem>.svg/.png/.csv.
void writeAll(const PlotWriters& writers, const QTemporaryDir& dir, const QString& stem) {
  QVERIFY(writers.svg(dir.filePath(stem + ".svg")));
  QVERIFY(writers.png(dir.filePath(stem + ".png")));
  QVERIFY(writers.csv(dir.filePath(stem + ".csv")));
  QVERIFY(!QImage(dir.filePath(stem + ".png")).isNull());
}
}  // namespace

class TestPlotExports : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void exportNamesGetTheirExtension() {
    QCOMPARE(withExportSuffix("/tmp/fig", "png"), QString("/tmp/fig.png"));
    QCOMPARE(withExportSuffix("/tmp/fig.svg", "png"), QString("/tmp/fig.svg"));  // an extension typed is kept
    QCOMPARE(csvField("a,b"), QString("\"a,b\""));
    QCOMPARE(csvField("say \"hi\""), QString("\"say \"\"hi\"\"\""));
    QCOMPARE(csvField("plain"), QString("plain"));
    QVERIFY(!writeTextFile("/nonexistent-folder/x.csv", "a"));
  }

  void scalingExportsWithALegendAndItsGraphs() {
    ComputeFrontierView view;
    view.resize(900, 600);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    FrontierGroup g;
    g.label = "mixer";
    g.runs = 2;
    g.points = {{1e12, 3.0}, {2e12, 2.8}, {4e12, 2.6}};
    g.frontier = g.points;
    g.fitted = true;
    g.a = 100, g.b = 0.2, g.c = 1.0;
    view.setGroups({g});
    QVERIFY(view.findChild<QToolButton*>("plot-export") != nullptr);
    QTemporaryDir dir;
    writeAll(view.exportWriters(), dir, "scaling");
    const QString svg = readAll(dir.filePath("scaling.svg"));
    QVERIFY(svg.contains("mixer frontier") && svg.contains("mixer fit"));  // the legend went into the figure
    QVERIFY(!view.findChild<QCustomPlot*>()->legend->visible());           // and left the screen again
    QCOMPARE(QImage(dir.filePath("scaling.png")).size(), view.findChild<QCustomPlot*>()->size());
    const QStringList lines = csvLines(dir.filePath("scaling.csv"));
    QCOMPARE(lines.front(), QString("series,training FLOPs (log),eval loss"));
    QVERIFY2(lines.contains("mixer evals,2e+12,2.8"), qPrintable(lines.join(" | ")));
    QVERIFY(lines.contains("mixer frontier,4e+12,2.6"));
    // The fit's first point is a * C^-b + c at the frontier's first compute.
    QVERIFY(lines.contains(QString("mixer fit,1e+12,%1").arg(100 * std::pow(1e12, -0.2) + 1.0, 0, 'g', 10)));
    QCOMPARE(lines.size(), 1 + 3 + 3 + 61);
  }

  void inspectChartsExportTheirData() {
    QTemporaryDir dir;
    InversionLayerChart chart;
    chart.resize(600, 360);
    chart.show();
    chart.setSeries({{"mixer", {0, 1, 2}, {0.0, 0.25, 0.5}, {0.1, 0.3, 0.75}, QColor()}}, 5);
    writeAll(chart.exportWriters(), dir, "layers");
    QStringList lines = csvLines(dir.filePath("layers.csv"));
    QCOMPARE(lines.front(), QString("series,layer (0 = embedding),Hamming distance"));
    QVERIFY(lines.contains("mixer,1,0.25") && lines.contains("mixer (exact),2,0.75"));
    QCOMPARE(lines.size(), 1 + 3 + 3);
    QVERIFY(readAll(dir.filePath("layers.svg")).contains("solid: top-5 match, dashed: exact"));

    InversionLossPlot descent;
    descent.resize(400, 300);
    descent.show();
    descent.setCurves({{"llama", QColor(), {0.5, 0.25, 0.125}}}, 1);
    writeAll(descent.exportWriters(), dir, "descent");
    lines = csvLines(dir.filePath("descent.csv"));
    QCOMPARE(lines.front(), QString("series,descent step,L1 / |target|"));
    QCOMPARE(lines.mid(1), (QStringList{"llama,1,0.5", "llama,2,0.25", "llama,3,0.125"}));
    QVERIFY(readAll(dir.filePath("descent.svg")).contains("llama"));  // its legend, in the figure only

    InversionHeatmap heatmap;
    heatmap.resize(500, 300);
    heatmap.show();
    heatmap.setGrid({{0, 2}, {"untrained", "50"}, {{0.9, NAN}, {1.0, 0.4}}, "mean Hamming, top-5"});
    writeAll(heatmap.exportWriters(), dir, "heatmap");
    lines = csvLines(dir.filePath("heatmap.csv"));
    QCOMPARE(lines, (QStringList{"layer,checkpoint,\"mean Hamming, top-5\"", "0,untrained,0.9", "0,50,",
                                 "2,untrained,1", "2,50,0.4"}));
  }
};

QTEST_MAIN(TestPlotExports)
#include "test_plot_exports.moc"
