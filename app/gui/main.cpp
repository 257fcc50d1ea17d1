// mixerlab-gui: the desktop workbench. Opens the project given on the command line, else the most
// recent one, else the bundled demo project. `--screenshot FILE` saves the window after it has
// loaded (for docs and checks) and exits. `--generate RUN_OR_CHECKPOINT` (repeatable) opens the
// Generate tab with those columns and generates (from `--prompt`, else the first eval prompt);
// with --screenshot the window is saved once every column has finished (startup_generation.h).
// `--inspect MODEL` (repeatable, "untrained:" for a twin) opens the Inspect tab and inverts (from
// `--text`, else the first eval document); `--over-training RUN` runs the heatmap; with
// --screenshot the window is saved once they have finished (startup_inversion.h).
// `--retrieve MODEL` (repeatable) opens the Retrieve tab and searches (`--query`, else held-out
// summary `--held-out N`); with --screenshot the window is saved once every column has ranked.
// The options are parsed and applied in app/gui/startup/startup_options.h (a bad value exits with 2);
// --help works without a display.
#include <QApplication>

#include <cstdio>
#include <cstring>

#include "app/gui/shell/main_window.h"
#include "app/gui/startup/startup_options.h"
#include "core/util/openmp_wait.h"
#include "kernels/environment/compute_paths.h"

namespace {
// --help needs no display: it is answered by a QCoreApplication, before the GUI application (which
// cannot start without a display) is made.
bool asksForHelp(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0 ||
        std::strcmp(argv[i], "--help-all") == 0) {
      return true;
    }
  }
  return false;
}
}  // namespace

int main(int argc, char** argv) {
  if (asksForHelp(argc, argv)) {
    QCoreApplication core(argc, argv);
    QCoreApplication::setApplicationName("MixerLab");
    std::fputs(qPrintable(mixerlab::gui::parseStartupOptions(QCoreApplication::arguments()).help), stdout);
    return 0;
  }
  mixerlab::ensurePassiveOpenMpWait(argv);  // before anything starts a thread
  try {
    mixerlab::kernels::activeComputePaths();  // parsed once, here: a mistyped MIXERLAB_* path stops by name
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mixerlab-gui: %s\n", e.what());
    return 2;
  }
  QApplication app(argc, argv);
  QApplication::setApplicationName("MixerLab");
  const mixerlab::gui::StartupParse parsed = mixerlab::gui::parseStartupOptions(QApplication::arguments());
  if (!parsed.help.isEmpty()) {
    std::fputs(qPrintable(parsed.help), stdout);
    return 0;
  }
  if (!parsed.error.isEmpty()) {
    std::fprintf(stderr, "mixerlab-gui: %s\n", qPrintable(parsed.error));
    return 2;
  }
  mixerlab::gui::MainWindow window;
  const QString error = mixerlab::gui::applyStartupOptions(window, parsed.options);
  if (!error.isEmpty()) {
    std::fprintf(stderr, "mixerlab-gui: %s\n", qPrintable(error));
    return 2;
  }
  return app.exec();
}
