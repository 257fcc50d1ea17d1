// What `mixerlab-gui --generate RUN ...` does at start: opens the Generate tab with those columns,
// applies the preset and length, and generates from the given prompt or, without one, from the
// first eval-split prompt once it has been read. With a screenshot path it then hovers a token of
// the first column so its top-5 tooltip shows, saves the window's area of the screen (tooltip
// included) and quits: the docs' screenshot of the panel is taken this way, from the real app.
#pragma once
#include <QString>
#include <QStringList>

namespace mixerlab::gui {

class MainWindow;

struct StartupGeneration {
  QStringList checkpoints;  // run names of the open project, run folders or checkpoint folders
  QString prompt;
  bool prompt_given = false;
  QString preset;          // empty: the form's default
  int max_new_tokens = 0;  // 0: the form's default
  int samples = 1;         // stories per column
  QString screenshot;      // empty: no screenshot
};

void startGeneration(MainWindow& window, const StartupGeneration& options);

}  // namespace mixerlab::gui
