// Parsing and applying mixerlab-gui's command line (see startup_options.h). The options are listed
// here in the order --help shows them; each value is checked before the window exists.
#include "app/gui/startup/startup_options.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QTimer>

#include <climits>
#include <cmath>
#include <cstdio>

#include "app/gui/common/app_settings.h"
#include "app/gui/shell/main_window.h"
#include "app/gui/startup/screenshot_scenes.h"
#include "app/gui/startup/startup_outcome.h"
#include "core/runs/demo_project.h"
#include "widgets/forms/sampling_presets.h"

namespace mixerlab::gui {
namespace {

void addStartupOptionList(QCommandLineParser& parser) {
  parser.setApplicationDescription("MixerLab desktop workbench");
  parser.addHelpOption();
  parser.addPositionalArgument("project", "Project file (default: the most recent, else projects/demo/project.json)");
  parser.addOptions({
      {"screenshot", "Save a PNG of the window after loading, then exit.", "file"},
      {"report-latency", "Watch the project for SECONDS, then print the event loop's worst and p99 delay and exit.",
       "seconds"},
      {"size", "Window size WIDTHxHEIGHT (e.g. for screenshots).", "size"},
      {"generate", "Open the Generate tab with this run (name or folder) or checkpoint; repeatable.", "checkpoint"},
      {"prompt", "Prompt for --generate (default: the first eval-split prompt).", "text"},
      {"preset", "Sampling preset for --generate: Greedy, Balanced, Creative, ...", "name"},
      {"max-new-tokens", "Max new tokens for --generate.", "n"},
      {"samples", "Stories per column for --generate (1 to 8; seeds seed..seed+N-1; needs a sampling preset).", "n"},
      {"inspect",
       "Open the Inspect tab with this run (name or folder) or checkpoint; prefix untrained: for its untrained twin; "
       "repeatable.",
       "model"},
      {"text", "Input text for --inspect (default: the first eval-split document).", "text"},
      {"iterations", "Descent steps for --inspect / --over-training (default 500).", "n"},
      {"layers", "Layers for --inspect / --over-training: all, or e.g. 0,2,4.", "list"},
      {"over-training", "Invert at every checkpoint of this run (name or folder).", "run"},
      {"eval-inputs", "Eval documents inverted by --over-training (default 4).", "n"},
      {"retrieve",
       "Open the Retrieve tab with this run, checkpoint or dataset folder; repeatable (\"untrained:RUN\" for its "
       "untrained twin).",
       "model"},
      {"query", "Query for --retrieve (default: a held-out summary, see --held-out).", "text"},
      {"held-out", "Held-out summary (1-based) --retrieve searches for (default 1).", "n"},
      {"stories", "Synthetic corpus size for --retrieve (default 400).", "n"},
      {"scene",
       "Set up a documented state before --screenshot: panels, run-table, queue, sweep, sweep-check, fork, "
       "seed-groups, seed-groups-comparison, wall-clock-comparison, scaling, "
       "reproduce, project-settings, docs.",
       "name"},
  });
}

// Reads the parsed options' values, keeping the first bad one as the error.
class StartupValueReader {
 public:
  explicit StartupValueReader(const QCommandLineParser& parser) : parser_(parser) {}

  bool isSet(const char* name) const { return parser_.isSet(name); }
  QString text(const char* name) const { return parser_.value(name); }
  QStringList list(const char* name) const { return parser_.values(name); }
  const QString& error() const { return error_; }

  void fail(const char* name, const QString& problem, const QString& fix) {
    if (error_.isEmpty()) error_ = "--" + QString(name) + " " + problem + ": " + fix;
  }

  // A value that must not be empty (a file or a name); empty when the option is absent.
  QString nonEmpty(const char* name, const QString& fix) {
    const QString value = parser_.value(name);
    if (parser_.isSet(name) && value.trimmed().isEmpty()) fail(name, "is empty", fix);
    return value;
  }

  // A whole number >= 1; `absent` when the option is not given (or its value is bad).
  int count(const char* name, int absent) {
    if (!parser_.isSet(name)) return absent;
    bool ok = false;
    const QString value = parser_.value(name);
    const int n = value.trimmed().toInt(&ok);
    if (ok && n >= 1) return n;
    fail(name, quoted(value) + " is not a whole number >= 1", QString("give e.g. --%1 10").arg(name));
    return absent;
  }

  // A side of 8192 pixels is a 256 MiB window image: beyond that, X's shared-memory images and the
  // screenshot fail, and the size would be saved for every later start.
  static constexpr int kMaxWindowSide = 8192;

  // WIDTHxHEIGHT in pixels; an invalid size when the option is not given (or its value is bad).
  QSize windowSize(const char* name) {
    if (!parser_.isSet(name)) return {};
    const QString value = parser_.value(name);
    const QStringList parts = value.trimmed().split('x');
    bool width_ok = false, height_ok = false;
    const int width = parts.size() == 2 ? parts[0].toInt(&width_ok) : 0;
    const int height = parts.size() == 2 ? parts[1].toInt(&height_ok) : 0;
    if (width_ok && height_ok && width >= 1 && height >= 1 && width <= kMaxWindowSide && height <= kMaxWindowSide) {
      return {width, height};
    }
    if (width_ok && height_ok && width >= 1 && height >= 1) {
      fail(name, quoted(value) + " is larger than the window can be drawn",
           QString("give at most %1x%1 pixels, e.g. --%2 1400x900").arg(kMaxWindowSide).arg(name));
    } else {
      fail(name, quoted(value) + " is not WIDTHxHEIGHT",
           QString("give the window size in pixels, e.g. --%1 1400x900").arg(name));
    }
    return {};
  }

  // Seconds > 0 that fit a Qt timer (whole milliseconds in an int).
  std::optional<double> seconds(const char* name) {
    if (!parser_.isSet(name)) return std::nullopt;
    bool ok = false;
    const QString value = parser_.value(name);
    const double s = value.trimmed().toDouble(&ok);
    constexpr double kMaxSeconds = INT_MAX / 1000.0;
    if (ok && std::isfinite(s) && s > 0 && s <= kMaxSeconds) return s;
    fail(name, quoted(value) + " is not a number of seconds > 0",
         QString("give e.g. --%1 60 (at most %2)").arg(name).arg(static_cast<int>(kMaxSeconds)));
    return std::nullopt;
  }

  // "all" or whole numbers separated by commas (0 = the embedding, -1 = the last block).
  QString layerList(const char* name) {
    const QString value = parser_.value(name);
    if (!parser_.isSet(name) || value.trimmed() == "all") return value;
    const QStringList parts = value.split(',', Qt::SkipEmptyParts);
    bool ok = !parts.isEmpty();
    for (const QString& part : parts) {
      bool number = false;
      part.trimmed().toInt(&number);
      ok = ok && number;
    }
    if (!ok) fail(name, quoted(value) + " is not a list of layers", QString("give all, or e.g. --%1 0,2,4").arg(name));
    return value;
  }

  // A sampling preset's name, as the generation panel lists them; empty when not given.
  QString presetName(const char* name) {
    const QString value = parser_.value(name);
    if (!parser_.isSet(name)) return value;
    QStringList names;
    for (const widgets::SamplingPreset& preset : widgets::samplingPresets()) {
      if (preset.name == value) return value;
      names << preset.name;
    }
    fail(name, quoted(value) + " is no sampling preset", "use one of " + names.join(", "));
    return value;
  }

 private:
  static QString quoted(const QString& value) { return "\"" + value + "\""; }

  const QCommandLineParser& parser_;
  QString error_;
};

StartupGeneration readGeneration(StartupValueReader& values, const QString& screenshot) {
  StartupGeneration generation;
  generation.checkpoints = values.list("generate");
  generation.prompt = values.text("prompt");
  generation.prompt_given = values.isSet("prompt");
  generation.preset = values.presetName("preset");
  generation.max_new_tokens = values.count("max-new-tokens", 0);
  generation.samples = values.count("samples", 1);
  generation.screenshot = screenshot;
  return generation;
}

StartupInversion readInversion(StartupValueReader& values, const QString& screenshot) {
  StartupInversion inversion;
  inversion.models = values.list("inspect");
  inversion.text = values.text("text");
  inversion.iterations = values.count("iterations", 0);
  inversion.layers = values.layerList("layers");
  inversion.over_training = values.nonEmpty("over-training", "give a run name or folder");
  inversion.eval_inputs = values.count("eval-inputs", 0);
  inversion.screenshot = screenshot;
  return inversion;
}

StartupRetrieval readRetrieval(StartupValueReader& values, const QString& screenshot) {
  StartupRetrieval retrieval;
  retrieval.models = values.list("retrieve");
  retrieval.query = values.text("query");
  retrieval.held_out = values.count("held-out", retrieval.held_out);
  retrieval.synthetic_count = values.count("stories", 0);
  retrieval.screenshot = screenshot;
  return retrieval;
}

// The project given (parseStartupOptions has checked that it exists), else the most recent one,
// else the demo: a checkout's projects/demo, else the installed package's (copied to a writable
// folder). A most recent project that has gone since falls back to the demo and says so in `note`.
QString projectToOpen(const QString& given, QString* note) {
  if (!given.isEmpty()) return given;
  const QString recent = AppSettings().lastProject();
  if (!recent.isEmpty() && QFileInfo::exists(recent)) return recent;
  const auto demo = demoProjectFile(QCoreApplication::applicationFilePath().toStdString());
  const QString project = demo.empty() ? QString("projects/demo/project.json") : QString::fromStdString(demo.string());
  if (!recent.isEmpty()) *note = "the most recent project " + recent + " is gone: opened the demo project";
  return project;
}

// The positional project: a file that exists (a folder is read as its project.json).
QString checkedProjectArgument(const QString& given, QString* error) {
  if (given.isEmpty()) return given;
  const QFileInfo info(given);
  if (info.isDir()) {
    const QString inside = QDir(given).filePath("project.json");
    if (QFileInfo(inside).isFile()) return inside;
    *error = "\"" + given + "\" is a folder without a project.json: give the project file";
    return {};
  }
  if (!info.exists()) {
    *error =
        "no project file at \"" + given + "\": give an existing project.json (or no project, for the most recent one)";
    return {};
  }
  return given;
}

}  // namespace

StartupParse parseStartupOptions(const QStringList& arguments) {
  StartupParse result;
  QCommandLineParser parser;
  addStartupOptionList(parser);
  if (!parser.parse(arguments)) {
    QString problem = parser.errorText();  // "Unknown option 'x'." or "Missing value after '--size'."
    if (problem.endsWith('.')) problem.chop(1);
    result.error = problem + ": see mixerlab-gui --help for the options";
    return result;
  }
  if (parser.isSet("help-all")) parser.process(arguments);  // prints the help with Qt's options and exits
  if (parser.isSet("help")) {
    result.help = parser.helpText();
    return result;
  }
  const QStringList positional = parser.positionalArguments();
  if (positional.size() > 1) {
    result.error = "more than one project given (" + positional.join(", ") + "): give one project file";
    return result;
  }

  StartupValueReader values(parser);
  StartupOptions& options = result.options;
  options.project = checkedProjectArgument(positional.value(0), &result.error);
  if (!result.error.isEmpty()) return result;
  options.screenshot = values.nonEmpty("screenshot", "give the PNG file to write");
  options.scene =
      values.nonEmpty("scene",
                      "give a scene name: panels, run-table, queue, sweep, sweep-check, fork, seed-groups, "
                      "seed-groups-comparison, wall-clock-comparison, scaling, reproduce, project-settings, docs");
  options.window_size = values.windowSize("size");
  options.report_latency_s = values.seconds("report-latency");
  if (values.isSet("generate")) {
    options.generation = readGeneration(values, options.screenshot);
  } else if (values.isSet("inspect") || values.isSet("over-training")) {
    options.inversion = readInversion(values, options.screenshot);
  } else if (values.isSet("retrieve")) {
    options.retrieval = readRetrieval(values, options.screenshot);
  }
  result.error = values.error();
  return result;
}

QString applyStartupOptions(MainWindow& window, const StartupOptions& options) {
  // A scripted start (a screenshot, a latency report) leaves the user's window layout as it was.
  const bool scripted = !options.screenshot.isEmpty() || options.report_latency_s.has_value();
  window.setKeepsWindowLayout(!scripted);
  QString note;
  const QString project = projectToOpen(options.project, &note);
  const QString open_error = window.openProject(project);
  if (!open_error.isEmpty() && scripted) reportStartupProblem("could not open " + project + ": " + open_error);
  if (open_error.isEmpty() && !note.isEmpty()) window.showStatusNote(note);
  if (options.window_size.isValid()) window.resize(options.window_size);
  window.show();
  if (options.generation) startGeneration(window, *options.generation);
  if (options.inversion) startInversion(window, *options.inversion);
  if (options.retrieval) startRetrieval(window, *options.retrieval);
  QWidget* shot_target = &window;
  if (!options.scene.isEmpty()) {
    QString error;
    shot_target = prepareScreenshotScene(window, options.scene, &error);
    if (!shot_target) return error;
  }
  // A startup action saves its own screenshot once it has finished.
  const bool startup_action = options.generation || options.inversion || options.retrieval;
  if (!options.screenshot.isEmpty() && !startup_action) {
    QTimer::singleShot(2500, &window, [&window, shot_target, file = options.screenshot, scene = options.scene]() {
      saveStartupScreenshot(shot_target->grab(), file);
      if (!scene.isEmpty()) finishScreenshotScene(window, scene);
      endScriptedStart();
    });
  }
  if (options.report_latency_s) {
    const double seconds = *options.report_latency_s;
    QTimer::singleShot(static_cast<int>(seconds * 1000), &window, [&window, seconds]() {
      std::printf("event loop latency over %s s: max %.1f ms, p99 %.1f ms\n", qPrintable(QString::number(seconds)),
                  window.eventLoopMaxLatencyMs(), window.eventLoopP99LatencyMs());
      endScriptedStart();
    });
  }
  return {};
}

}  // namespace mixerlab::gui
