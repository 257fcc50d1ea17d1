// mixerlab-gui: the desktop workbench. Opens the project given on the command line, else the most
// recent one, else the bundled demo project. `--screenshot FILE` saves the window after it has
// loaded (for docs and checks) and exits.
#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QTimer>

#include <cstdio>

#include "app/gui/app_settings.h"
#include "app/gui/main_window.h"

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setApplicationName("MixerLab");
  QCommandLineParser parser;
  parser.setApplicationDescription("MixerLab desktop workbench");
  parser.addHelpOption();
  parser.addPositionalArgument("project", "Project file (default: the most recent, else projects/demo/project.json)");
  QCommandLineOption screenshot("screenshot", "Save a PNG of the window after loading, then exit.", "file");
  parser.addOption(screenshot);
  QCommandLineOption latency("report-latency",
                             "Watch the project for SECONDS, then print the event loop's worst and p99 delay and exit.",
                             "seconds");
  parser.addOption(latency);
  parser.process(app);

  mixerlab::gui::MainWindow window;
  QString project = parser.positionalArguments().value(0);
  if (project.isEmpty()) project = mixerlab::gui::AppSettings().lastProject();
  if (project.isEmpty() || !QFileInfo::exists(project)) project = "projects/demo/project.json";
  window.openProject(project);
  window.show();
  if (parser.isSet(screenshot)) {
    QTimer::singleShot(2500, &window, [&]() {
      window.grab().save(parser.value(screenshot));
      app.quit();
    });
  }
  if (parser.isSet(latency)) {
    QTimer::singleShot(static_cast<int>(parser.value(latency).toDouble() * 1000), &window, [&]() {
      std::printf("event loop latency over %s s: max %.1f ms, p99 %.1f ms\n", qPrintable(parser.value(latency)),
                  window.eventLoopMaxLatencyMs(), window.eventLoopP99LatencyMs());
      app.quit();
    });
  }
  return app.exec();
}
