// What `mixerlab-gui --inspect MODEL ...` and `--over-training RUN` do at start: open the Inspect
// tab with those models (run names, run or checkpoint folders, "untrained:" before either for the
// untrained twin), apply the iterations and layers, and invert the given text or, without one,
// the first eval-split document once it has been read; --over-training then (or alone) runs the
// Over training page on a run's checkpoints and opens one cell's diff. With a screenshot path it
// hovers a missed token of the diff so its tooltip (rank, candidates) shows, saves the window's
// area of the screen and quits: the docs' screenshots of the inspector are taken this way.
#pragma once
#include <QString>
#include <QStringList>

namespace mixerlab::gui {

class MainWindow;

struct StartupInversion {
  QStringList models;     // empty: no inspection (over training only)
  QString text;           // the input; empty: the first eval-split document
  int iterations = 0;     // 0: the form's default
  QString layers;         // "all" or "0,2,4"; empty: the form's default (all)
  QString over_training;  // a run name or folder; empty: none
  int eval_inputs = 0;    // inputs of the over-training run (0: the page's default)
  QString screenshot;     // empty: no screenshot
};

void startInversion(MainWindow& window, const StartupInversion& options);

}  // namespace mixerlab::gui
