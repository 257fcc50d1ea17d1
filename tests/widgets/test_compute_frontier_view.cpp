// The Scaling tab's view: each group draws its points, its frontier and (when fitted) its fit; the
// fit table shows the parameters with their standard errors, or why there is no fit; the plot keeps
// its size when groups are added (the table, not a legend, names them). Links mixerlab_widgets only.
#include <QtTest/QtTest>

#include <QComboBox>
#include <QSignalSpy>

#include "widgets/plots/compute_frontier_view.h"

using namespace mixerlab::widgets;

namespace {
FrontierGroup group(const QString& label, bool fitted) {
  FrontierGroup g;
  g.label = label;
  g.runs = 3;
  g.points = {{1e12, 3.0}, {2e12, 2.8}, {4e12, 2.6}, {4e12, 2.9}};
  g.frontier = {{1e12, 3.0}, {2e12, 2.8}, {4e12, 2.6}};
  g.fitted = fitted;
  if (fitted) {
    g.a = 7962;
    g.b = 0.31;
    g.c = 1.52;
    g.a_std = 120;
    g.b_std = 0.02;
    g.c_std = 0.04;
    g.rmse = 0.003;
  } else {
    g.problem = "a power law needs at least 3 points with positive compute, got 2";
  }
  return g;
}
}  // namespace

class TestComputeFrontierView : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void groupsDrawPointsFrontiersAndFits() {
    ComputeFrontierView view;
    view.resize(900, 600);
    view.show();
    view.setGroups({group("masked_mixer", true), group("llama", false)});
    QCOMPARE(view.drawnGraphCount(), 3 + 2);  // points, frontier, fit; points, frontier
    QVERIFY2(view.fitText(0).contains("0.31 ± 0.02") && view.fitText(0).contains("1.52 ± 0.04"),
             qPrintable(view.fitText(0)));
    QVERIFY(view.fitText(0).startsWith("masked_mixer | 3 | 3"));
    QVERIFY2(view.fitText(1).contains("at least 3 points"), qPrintable(view.fitText(1)));
    view.setGroups({});
    QCOMPARE(view.drawnGraphCount(), 0);
  }

  void moreGroupsNeverShrinkThePlot() {
    ComputeFrontierView view;
    view.resize(900, 600);
    view.show();
    view.setGroups({group("one", true)});
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const int height_one = view.axisRect().height();
    QVector<FrontierGroup> many;
    for (int i = 0; i < 8; ++i) many << group(QString("group %1").arg(i), true);
    view.setGroups(many);
    QCOMPARE(view.axisRect().height(), height_one);
  }

  void changingTheGroupingAsksForNewGroups() {
    ComputeFrontierView view;
    QSignalSpy changed(&view, &ComputeFrontierView::groupingChanged);
    QCOMPARE(view.grouping(), FrontierGrouping::Architecture);
    view.findChild<QComboBox*>()->setCurrentIndex(2);
    QCOMPARE(changed.count(), 1);
    QCOMPARE(view.grouping(), FrontierGrouping::AllButSeed);
  }
};

QTEST_MAIN(TestComputeFrontierView)
#include "test_compute_frontier_view.moc"
