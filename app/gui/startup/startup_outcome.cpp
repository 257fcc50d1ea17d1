// A scripted start's problems and exit code (see startup_outcome.h).
#include "app/gui/startup/startup_outcome.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QImageWriter>
#include <QPixmap>
#include <QSaveFile>
#include <QTimer>

#include <cstdio>

#include "app/gui/tooling/window_screenshot.h"

namespace mixerlab::gui {
namespace {
bool& problemSeen() {
  static bool seen = false;  // the GUI thread only: startup runs there
  return seen;
}
}  // namespace

void reportStartupProblem(const QString& problem) {
  std::fprintf(stderr, "mixerlab-gui: %s\n", qPrintable(problem));
  problemSeen() = true;
}

bool startupHadProblem() { return problemSeen(); }

void forgetStartupProblems() { problemSeen() = false; }

bool saveStartupScreenshot(const QPixmap& shot, const QString& file) {
  const QString fix = "give --screenshot a file in a folder that exists and is writable, on a disk with free space";
  if (shot.isNull()) {
    reportStartupProblem("the window could not be captured for the screenshot " + file + ": " + fix);
    return false;
  }
  const QFileInfo target(file);
  if (target.exists() && !target.isFile()) {  // a folder or a device (/dev/full) is never replaced
    reportStartupProblem("the screenshot path " + target.absoluteFilePath() + " is not a regular file: " + fix);
    return false;
  }
  QSaveFile out(file);
  if (!out.open(QIODevice::WriteOnly)) {
    reportStartupProblem("cannot write the screenshot " + QFileInfo(file).absoluteFilePath() + " (" +
                         out.errorString() + "): " + fix);
    return false;
  }
  QImageWriter writer(&out, "png");
  if (!writer.write(shot.toImage()) || !out.commit()) {
    const QString reason = writer.error() != QImageWriter::UnknownError ? writer.errorString() : out.errorString();
    reportStartupProblem("cannot write the screenshot " + QFileInfo(file).absoluteFilePath() + " (" + reason +
                         "): " + fix);
    return false;
  }
  return true;
}

void endScriptedStart() { QCoreApplication::exit(startupHadProblem() ? 1 : 0); }

void endWithWindowScreenshot(QWidget& window, const QString& file, int delay_ms) {
  QTimer::singleShot(delay_ms, &window, [&window, file]() {
    saveStartupScreenshot(windowScreenshot(window), file);
    endScriptedStart();
  });
}

}  // namespace mixerlab::gui
