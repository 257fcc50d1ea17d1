// What `mixerlab-gui --retrieve MODEL ...` does at start: opens the Retrieve tab with those models
// as columns and, once every column is ready, searches with the given query or, without one, picks
// held-out summary N (its story marked as the true match). With a screenshot path it then saves the
// window and quits: the docs' screenshot of the retrieval panel is taken this way, from the real app.
#pragma once
#include <QString>
#include <QStringList>

namespace mixerlab::gui {

class MainWindow;

struct StartupRetrieval {
  QStringList models;       // run names, run / checkpoint / dataset folders; "untrained:" for a twin
  QString query;            // empty: held-out summary `held_out`
  int held_out = 1;         // 1-based
  int synthetic_count = 0;  // 0: the panel's default corpus size
  QString screenshot;
};

void startRetrieval(MainWindow& window, const StartupRetrieval& options);

}  // namespace mixerlab::gui
