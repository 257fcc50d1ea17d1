// The command line of mixerlab-gui as plain values. parseStartupOptions() reads the arguments and
// checks every value (an error names the option and the fix); applyStartupOptions() opens the
// project, sizes and shows the window and starts what the options ask for. main.cpp is these two
// calls, and tests parse argument lists without starting the program.
#pragma once
#include <QSize>
#include <QString>
#include <QStringList>
#include <optional>

#include "app/gui/startup/startup_generation.h"
#include "app/gui/startup/startup_inversion.h"
#include "app/gui/startup/startup_retrieval.h"

namespace mixerlab::gui {

class MainWindow;

struct StartupOptions {
  QString project;     // the positional argument; empty: the most recent project, else the demo
  QString screenshot;  // --screenshot FILE: saved once loaded (or once the startup action finished), then quit
  QString scene;       // --scene NAME: a documented state set up before the screenshot (screenshot_scenes.h)
  QSize window_size;   // --size WIDTHxHEIGHT; invalid when not given
  std::optional<double> report_latency_s;  // --report-latency SECONDS: print the event loop's delay, then quit
  // At most one startup action, by precedence: --generate, else --inspect / --over-training, else
  // --retrieve (the options of the others are ignored). Each carries the screenshot path.
  std::optional<StartupGeneration> generation;
  std::optional<StartupInversion> inversion;
  std::optional<StartupRetrieval> retrieval;
};

// What parseStartupOptions found: the options, or the help text, or an error.
struct StartupParse {
  StartupOptions options;
  QString help;   // --help was given: print this and exit 0
  QString error;  // an unknown option or a bad value, naming the option and the fix: print it and exit 2
};

// `arguments` as QCoreApplication::arguments() gives them, the program first; needs the
// application object (the help text names the program). --help-all prints the help with Qt's own
// options and exits here, as QCommandLineParser::process() does.
StartupParse parseStartupOptions(const QStringList& arguments);

// Opens the project (else the most recent one, else the demo), sizes and shows the window, starts
// the startup action, and arms the screenshot and the latency report (each quits the application
// once done). Returns the error of an unknown scene, empty on success.
QString applyStartupOptions(MainWindow& window, const StartupOptions& options);

}  // namespace mixerlab::gui
