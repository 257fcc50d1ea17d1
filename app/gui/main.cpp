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
#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QTimer>

#include <cstdio>

#include "app/gui/shell/app_settings.h"
#include "app/gui/shell/main_window.h"
#include "app/gui/tooling/screenshot_scenes.h"
#include "app/gui/shell/openmp_wait.h"
#include "app/gui/generation/startup_generation.h"
#include "app/gui/inversion/startup_inversion.h"
#include "app/gui/retrieval/startup_retrieval.h"
#include "core/runs/demo_project.h"

int main(int argc, char** argv) {
  mixerlab::gui::ensurePassiveOpenMpWait(argv);  // before anything starts a thread
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
  QCommandLineOption size("size", "Window size WIDTHxHEIGHT (e.g. for screenshots).", "size");
  parser.addOption(size);
  QCommandLineOption generate(
      "generate", "Open the Generate tab with this run (name or folder) or checkpoint; repeatable.", "checkpoint");
  parser.addOption(generate);
  QCommandLineOption prompt("prompt", "Prompt for --generate (default: the first eval-split prompt).", "text");
  parser.addOption(prompt);
  QCommandLineOption preset("preset", "Sampling preset for --generate: Greedy, Balanced, Creative, ...", "name");
  parser.addOption(preset);
  QCommandLineOption max_new_tokens("max-new-tokens", "Max new tokens for --generate.", "n");
  parser.addOption(max_new_tokens);
  QCommandLineOption inspect("inspect",
                             "Open the Inspect tab with this run (name or folder) or checkpoint; prefix untrained: for "
                             "its untrained twin; repeatable.",
                             "model");
  parser.addOption(inspect);
  QCommandLineOption text("text", "Input text for --inspect (default: the first eval-split document).", "text");
  parser.addOption(text);
  QCommandLineOption iterations("iterations", "Descent steps for --inspect / --over-training (default 500).", "n");
  parser.addOption(iterations);
  QCommandLineOption layers("layers", "Layers for --inspect / --over-training: all, or e.g. 0,2,4.", "list");
  parser.addOption(layers);
  QCommandLineOption over_training("over-training", "Invert at every checkpoint of this run (name or folder).", "run");
  parser.addOption(over_training);
  QCommandLineOption eval_inputs("eval-inputs", "Eval documents inverted by --over-training (default 4).", "n");
  parser.addOption(eval_inputs);
  QCommandLineOption retrieve("retrieve",
                              "Open the Retrieve tab with this run, checkpoint or dataset folder; repeatable "
                              "(\"untrained:RUN\" for its untrained twin).",
                              "model");
  parser.addOption(retrieve);
  QCommandLineOption query("query", "Query for --retrieve (default: a held-out summary, see --held-out).", "text");
  parser.addOption(query);
  QCommandLineOption held_out("held-out", "Held-out summary (1-based) --retrieve searches for (default 1).", "n");
  parser.addOption(held_out);
  QCommandLineOption stories("stories", "Synthetic corpus size for --retrieve (default 400).", "n");
  parser.addOption(stories);
  QCommandLineOption scene("scene", "Set up a documented state before --screenshot: panels, run-table, queue, sweep.",
                           "name");
  parser.addOption(scene);
  parser.process(app);

  mixerlab::gui::MainWindow window;
  QString project = parser.positionalArguments().value(0);
  if (project.isEmpty()) project = mixerlab::gui::AppSettings().lastProject();
  if (project.isEmpty() || !QFileInfo::exists(project)) {
    // A checkout's projects/demo, else the installed package's demo (copied to a writable folder).
    const auto demo = mixerlab::demoProjectFile(QCoreApplication::applicationFilePath().toStdString());
    project = demo.empty() ? QString("projects/demo/project.json") : QString::fromStdString(demo.string());
  }
  window.openProject(project);
  if (parser.isSet(size)) {
    const QStringList wh = parser.value(size).split('x');
    if (wh.size() == 2) window.resize(wh[0].toInt(), wh[1].toInt());
  }
  window.show();
  const bool generating = parser.isSet(generate);
  if (generating) {
    mixerlab::gui::StartupGeneration options;
    options.checkpoints = parser.values(generate);
    options.prompt = parser.value(prompt);
    options.prompt_given = parser.isSet(prompt);
    options.preset = parser.value(preset);
    options.max_new_tokens = parser.value(max_new_tokens).toInt();
    if (parser.isSet(screenshot)) options.screenshot = parser.value(screenshot);
    mixerlab::gui::startGeneration(window, options);
  }
  const bool inspecting = parser.isSet(inspect) || parser.isSet(over_training);
  if (inspecting && !generating) {
    mixerlab::gui::StartupInversion options;
    options.models = parser.values(inspect);
    options.text = parser.value(text);
    options.iterations = parser.value(iterations).toInt();
    options.layers = parser.value(layers);
    options.over_training = parser.value(over_training);
    options.eval_inputs = parser.value(eval_inputs).toInt();
    if (parser.isSet(screenshot)) options.screenshot = parser.value(screenshot);
    mixerlab::gui::startInversion(window, options);
  }
  const bool retrieving = parser.isSet(retrieve) && !generating && !inspecting;
  if (retrieving) {
    mixerlab::gui::StartupRetrieval options;
    options.models = parser.values(retrieve);
    options.query = parser.value(query);
    if (parser.isSet(held_out)) options.held_out = parser.value(held_out).toInt();
    options.synthetic_count = parser.value(stories).toInt();
    if (parser.isSet(screenshot)) options.screenshot = parser.value(screenshot);
    mixerlab::gui::startRetrieval(window, options);
  }
  QWidget* shot_target = &window;
  if (parser.isSet(scene)) {
    QString error;
    shot_target = mixerlab::gui::prepareScreenshotScene(window, parser.value(scene), &error);
    if (!shot_target) {
      std::fprintf(stderr, "mixerlab-gui: %s\n", qPrintable(error));
      return 2;
    }
  }
  if (parser.isSet(screenshot) && !generating && !inspecting && !retrieving) {
    QTimer::singleShot(2500, &window, [&]() {
      shot_target->grab().save(parser.value(screenshot));
      if (parser.isSet(scene)) mixerlab::gui::finishScreenshotScene(window, parser.value(scene));
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
