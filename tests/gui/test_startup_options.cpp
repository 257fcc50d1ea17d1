// mixerlab-gui's command line (app/gui/startup/startup_options.h): every option read with a
// non-default value, the precedence of the startup actions (--generate, --inspect/--over-training,
// --retrieve), the errors for unknown options and bad values, and the options applied to a real
// main window (project, size, an unknown scene).
#include <QtTest/QtTest>

#include <QApplication>
#include <QFileInfo>
#include <QMessageBox>
#include <QProcess>

#include "app/gui/project/project_document.h"
#include "app/gui/shell/main_window.h"
#include "app/gui/startup/startup_options.h"
#include "core/util/atomic_file.h"
#include "tests/test_support.h"
#include "tests/training_fixture.h"

using namespace mixerlab;
namespace fs = std::filesystem;

namespace {

gui::StartupParse parse(QStringList arguments) {
  arguments.prepend("mixerlab-gui");
  return gui::parseStartupOptions(arguments);
}

}  // namespace

class TestStartupOptions : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  // `mixerlab-gui --help` answers on a machine without a display (no platform plugin is
  // loaded for it), so headless boxes can read the options.
  void helpWorksWithoutADisplay() {
    const QString gui =
        QString::fromStdString((testing::cliPath().parent_path().parent_path() / "gui" / "mixerlab-gui").string());
    QProcess process;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.remove("DISPLAY");
    environment.remove("WAYLAND_DISPLAY");
    environment.remove("QT_QPA_PLATFORM");
    process.setProcessEnvironment(environment);
    process.start(gui, {"--help"});
    QVERIFY(process.waitForFinished(30000));
    const QString out = QString::fromUtf8(process.readAllStandardOutput());
    QCOMPARE(process.exitCode(), 0);
    QVERIFY2(out.contains("--screenshot") && out.contains("--scene"), qPrintable(out + process.readAllStandardError()));
  }

  // A mistyped compute-path variable stops the workbench at start, naming the variable and the
  // values it takes, before any window (the CLI refuses it the same way).
  void aMistypedComputePathStopsTheStartByName() {
    const QString gui =
        QString::fromStdString((testing::cliPath().parent_path().parent_path() / "gui" / "mixerlab-gui").string());
    QProcess process;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert("MIXERLAB_DECODE_STEP", "fastest");
    environment.insert("QT_QPA_PLATFORM", "offscreen");
    process.setProcessEnvironment(environment);
    process.start(gui,
                  {"--screenshot", QString::fromStdString((testing::makeScratchDir("bad-path") / "x.png").string())});
    QVERIFY(process.waitForFinished(60000));
    const QString err = QString::fromUtf8(process.readAllStandardError());
    QCOMPARE(process.exitCode(), 2);
    QVERIFY2(err.contains("MIXERLAB_DECODE_STEP=\"fastest\"") && err.contains("aten"), qPrintable(err));
  }

  // A project file with a trailing comma gets a dialog naming the file, the line and
  // column and the fix, in plain words (no "[json.exception...]" id), and the project that was open
  // stays open.
  void aBrokenProjectFileGetsADialogAndTheOpenProjectStays() {
    const fs::path dir = testing::makeScratchDir("broken-project");
    const QString good = QString::fromStdString(testing::writeDemoProjectCopy(dir / "good").string());
    std::string text = mixerlab::readFile((dir / "good" / "project.json").string());
    const size_t seed = text.find("\"seed\": 42,");
    QVERIFY(seed != std::string::npos);
    text.insert(seed + std::string("\"seed\": 42,").size(), ",");  // a trailing comma
    const int line =
        static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(seed), '\n')) + 1;
    testing::writeText(dir / "broken.json", text);
    gui::MainWindow window;
    QVERIFY(window.openProject(good).isEmpty());
    const QString error = window.openProject(QString::fromStdString((dir / "broken.json").string()));
    QVERIFY2(error.contains(QString("line %1, column").arg(line)), qPrintable(error));
    QVERIFY2(!error.contains("json.exception"), qPrintable(error));
    QVERIFY2(error.contains("trailing commas"), qPrintable(error));
    QCOMPARE(window.project()->filePath(), QFileInfo(good).absoluteFilePath());
    auto* box = window.findChild<QMessageBox*>("project-error");
    QVERIFY(box);
    QVERIFY(box->isVisible());
    QVERIFY2(box->text().contains("broken.json"), qPrintable(box->text()));
    QVERIFY2(box->informativeText().contains("stays open"), qPrintable(box->informativeText()));
    box->close();
  }

  void noArgumentsGiveTheDefaults() {
    const gui::StartupParse parsed = parse({});
    QCOMPARE(parsed.error, QString());
    QCOMPARE(parsed.help, QString());
    const gui::StartupOptions& options = parsed.options;
    QVERIFY(options.project.isEmpty());
    QVERIFY(options.screenshot.isEmpty());
    QVERIFY(options.scene.isEmpty());
    QVERIFY(!options.window_size.isValid());
    QVERIFY(!options.report_latency_s);
    QVERIFY(!options.generation);
    QVERIFY(!options.inversion);
    QVERIFY(!options.retrieval);
  }

  void windowOptionsAreRead() {
    const gui::StartupParse parsed = parse({"/data/projects/stories/project.json", "--screenshot", "/tmp/shot.png",
                                            "--scene", "queue", "--size", "1400x900", "--report-latency", "2.5"});
    QCOMPARE(parsed.error, QString());
    const gui::StartupOptions& options = parsed.options;
    QCOMPARE(options.project, QString("/data/projects/stories/project.json"));
    QCOMPARE(options.screenshot, QString("/tmp/shot.png"));
    QCOMPARE(options.scene, QString("queue"));
    QCOMPARE(options.window_size, QSize(1400, 900));
    QVERIFY(options.report_latency_s);
    QCOMPARE(*options.report_latency_s, 2.5);
    QVERIFY(!options.generation && !options.inversion && !options.retrieval);
  }

  void generationOptionsAreRead() {
    const gui::StartupParse parsed =
        parse({"--generate", "mixer", "--generate", "runs/llama/checkpoints/step-40", "--prompt", "Once upon a time",
               "--preset", "Creative", "--max-new-tokens", "60", "--screenshot", "generate.png"});
    QCOMPARE(parsed.error, QString());
    QVERIFY(parsed.options.generation);
    const gui::StartupGeneration& generation = *parsed.options.generation;
    QCOMPARE(generation.checkpoints, QStringList({"mixer", "runs/llama/checkpoints/step-40"}));
    QCOMPARE(generation.prompt, QString("Once upon a time"));
    QVERIFY(generation.prompt_given);
    QCOMPARE(generation.preset, QString("Creative"));
    QCOMPARE(generation.max_new_tokens, 60);
    QCOMPARE(generation.screenshot, QString("generate.png"));
    QVERIFY(!parsed.options.inversion && !parsed.options.retrieval);
  }

  // An empty prompt is a prompt: the panel generates from it instead of waiting for the eval split.
  void anEmptyPromptIsGiven() {
    const gui::StartupParse parsed = parse({"--generate", "mixer", "--prompt", ""});
    QCOMPARE(parsed.error, QString());
    QVERIFY(parsed.options.generation->prompt_given);
    QVERIFY(parsed.options.generation->prompt.isEmpty());
    QVERIFY(!parse({"--generate", "mixer"}).options.generation->prompt_given);
  }

  void inversionOptionsAreRead() {
    const gui::StartupParse parsed =
        parse({"--inspect", "mixer", "--inspect", "untrained:mixer", "--text", "A cat sat on the mat.", "--iterations",
               "120", "--layers", "0,2,-1", "--over-training", "mixer-history", "--eval-inputs", "3", "--screenshot",
               "inspect.png"});
    QCOMPARE(parsed.error, QString());
    QVERIFY(parsed.options.inversion);
    const gui::StartupInversion& inversion = *parsed.options.inversion;
    QCOMPARE(inversion.models, QStringList({"mixer", "untrained:mixer"}));
    QCOMPARE(inversion.text, QString("A cat sat on the mat."));
    QCOMPARE(inversion.iterations, 120);
    QCOMPARE(inversion.layers, QString("0,2,-1"));
    QCOMPARE(inversion.over_training, QString("mixer-history"));
    QCOMPARE(inversion.eval_inputs, 3);
    QCOMPARE(inversion.screenshot, QString("inspect.png"));
    QVERIFY(!parsed.options.generation && !parsed.options.retrieval);
  }

  void overTrainingAloneStartsTheInversion() {
    const gui::StartupParse parsed = parse({"--over-training", "mixer", "--layers", "all"});
    QCOMPARE(parsed.error, QString());
    QVERIFY(parsed.options.inversion);
    QVERIFY(parsed.options.inversion->models.isEmpty());
    QCOMPARE(parsed.options.inversion->over_training, QString("mixer"));
    QCOMPARE(parsed.options.inversion->layers, QString("all"));
    QCOMPARE(parsed.options.inversion->iterations, 0);  // the form's default
  }

  void retrievalOptionsAreRead() {
    const gui::StartupParse parsed =
        parse({"--retrieve", "mixer", "--retrieve", "untrained:mixer", "--query", "a dog finds a ball", "--held-out",
               "3", "--stories", "50", "--screenshot", "retrieve.png"});
    QCOMPARE(parsed.error, QString());
    QVERIFY(parsed.options.retrieval);
    const gui::StartupRetrieval& retrieval = *parsed.options.retrieval;
    QCOMPARE(retrieval.models, QStringList({"mixer", "untrained:mixer"}));
    QCOMPARE(retrieval.query, QString("a dog finds a ball"));
    QCOMPARE(retrieval.held_out, 3);
    QCOMPARE(retrieval.synthetic_count, 50);
    QCOMPARE(retrieval.screenshot, QString("retrieve.png"));
    QVERIFY(!parsed.options.generation && !parsed.options.inversion);
  }

  void retrievalDefaultsToTheFirstHeldOutSummary() {
    const gui::StartupParse parsed = parse({"--retrieve", "mixer"});
    QCOMPARE(parsed.error, QString());
    QCOMPARE(parsed.options.retrieval->held_out, 1);
    QCOMPARE(parsed.options.retrieval->synthetic_count, 0);
    QVERIFY(parsed.options.retrieval->query.isEmpty());
  }

  void oneStartupActionByPrecedence() {
    const gui::StartupParse all = parse({"--retrieve", "a", "--inspect", "b", "--generate", "c"});
    QCOMPARE(all.error, QString());
    QVERIFY(all.options.generation && !all.options.inversion && !all.options.retrieval);
    const gui::StartupParse two = parse({"--retrieve", "a", "--over-training", "b"});
    QCOMPARE(two.error, QString());
    QVERIFY(!two.options.generation && two.options.inversion && !two.options.retrieval);
  }

  void helpIsReturnedForTheCallerToPrint() {
    const gui::StartupParse parsed = parse({"--help"});
    QCOMPARE(parsed.error, QString());
    QVERIFY2(parsed.help.contains("MixerLab desktop workbench"), qPrintable(parsed.help));
    for (const char* option : {"--screenshot <file>", "--report-latency <seconds>", "--max-new-tokens <n>",
                               "--over-training <run>", "--scene <name>"}) {
      QVERIFY2(parsed.help.contains(option), option);
    }
  }

  void badValuesAreRefused_data() {
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("expected");  // part of the error
    QTest::newRow("unknown option") << QStringList{"--bogus"} << "Unknown option 'bogus'";
    QTest::newRow("missing value") << QStringList{"--size"} << "'--size'";
    QTest::newRow("two projects") << QStringList{"a.json", "b.json"} << "more than one project given (a.json, b.json)";
    QTest::newRow("size without height") << QStringList{"--size", "1400"} << "--size \"1400\" is not WIDTHxHEIGHT";
    QTest::newRow("size zero") << QStringList{"--size", "0x900"} << "--size \"0x900\"";
    QTest::newRow("size words") << QStringList{"--size", "widexhigh"} << "e.g. --size 1400x900";
    QTest::newRow("latency word") << QStringList{"--report-latency", "soon"} << "--report-latency \"soon\"";
    QTest::newRow("latency negative") << QStringList{"--report-latency", "-1"} << "seconds > 0";
    QTest::newRow("latency zero") << QStringList{"--report-latency", "0"} << "seconds > 0";
    QTest::newRow("latency too long") << QStringList{"--report-latency", "1e9"} << "at most";
    QTest::newRow("empty screenshot") << QStringList{"--screenshot", ""} << "--screenshot is empty";
    QTest::newRow("empty scene") << QStringList{"--scene", " "} << "--scene is empty";
    QTest::newRow("no new tokens") << QStringList{"--generate", "mixer", "--max-new-tokens", "0"}
                                   << "--max-new-tokens \"0\" is not a whole number >= 1";
    QTest::newRow("tokens in words") << QStringList{"--generate", "mixer", "--max-new-tokens", "ten"}
                                     << "--max-new-tokens \"ten\"";
    QTest::newRow("unknown preset") << QStringList{"--generate", "mixer", "--preset", "Wild"}
                                    << "--preset \"Wild\" is no sampling preset: use one of Greedy, Balanced";
    QTest::newRow("negative iterations") << QStringList{"--inspect", "mixer", "--iterations", "-5"}
                                         << "--iterations \"-5\"";
    QTest::newRow("layer word") << QStringList{"--inspect", "mixer", "--layers", "0,two"}
                                << "--layers \"0,two\" is not a list of layers";
    QTest::newRow("no layer") << QStringList{"--inspect", "mixer", "--layers", ","} << "--layers \",\"";
    QTest::newRow("eval inputs word") << QStringList{"--over-training", "mixer", "--eval-inputs", "many"}
                                      << "--eval-inputs \"many\"";
    QTest::newRow("empty over-training") << QStringList{"--over-training", ""} << "--over-training is empty";
    QTest::newRow("held-out zero") << QStringList{"--retrieve", "mixer", "--held-out", "0"} << "--held-out \"0\"";
    QTest::newRow("fraction of stories") << QStringList{"--retrieve", "mixer", "--stories", "1.5"}
                                         << "--stories \"1.5\"";
  }

  void badValuesAreRefused() {
    QFETCH(QStringList, arguments);
    QFETCH(QString, expected);
    const gui::StartupParse parsed = parse(arguments);
    QVERIFY2(parsed.error.contains(expected), qPrintable("error: " + parsed.error));
  }

  void applyOpensTheProjectAndSizesTheWindow() {
    const fs::path dir = testing::makeScratchDir("startup-options");
    const QString project = QString::fromStdString(testing::writeTinyProject(dir).string());
    const gui::StartupParse parsed = parse({project, "--size", "1500x950", "--scene", "no-such-scene"});
    QCOMPARE(parsed.error, QString());
    gui::MainWindow window;
    const QString error = gui::applyStartupOptions(window, parsed.options);
    QVERIFY2(error.contains("unknown scene no-such-scene"), qPrintable(error));
    QCOMPARE(QFileInfo(window.project()->filePath()).canonicalFilePath(), QFileInfo(project).canonicalFilePath());
    QCOMPARE(window.size(), QSize(1500, 950));  // above the window's minimum, not its default
    QVERIFY(window.isVisible());
  }
};

QTEST_MAIN(TestStartupOptions)
#include "test_startup_options.moc"
