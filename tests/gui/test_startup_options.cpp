// mixerlab-gui's command line (app/gui/startup/startup_options.h): every option read with a
// non-default value, the precedence of the startup actions (--generate, --inspect/--over-training,
// --retrieve), the errors for unknown options and bad values, and the options applied to a real
// main window (project, size, an unknown scene).
#include <QtTest/QtTest>

#include <QApplication>
#include <QFileInfo>
#include <QMessageBox>
#include <QProcess>
#include <QScreen>
#include <QTabWidget>

#include "app/gui/common/app_settings.h"
#include "app/gui/common/screen_fit.h"
#include "app/gui/project/project_document.h"
#include "app/gui/shell/main_window.h"
#include "app/gui/startup/startup_options.h"
#include "core/util/atomic_file.h"
#include "tests/test_support.h"
#include "tests/training_fixture.h"

using namespace mixerlab;
namespace fs = std::filesystem;

namespace {

// A settings file of the test's own for its lifetime: the shared one (MIXERLAB_SETTINGS_DIR of
// CTest) may be written by another test program running at the same time.
class PrivateSettings {
 public:
  explicit PrivateSettings(const std::string& tag) : before_(qgetenv("MIXERLAB_SETTINGS_DIR")) {
    qputenv("MIXERLAB_SETTINGS_DIR", QByteArray::fromStdString(testing::makeScratchDir(tag).string()));
  }
  ~PrivateSettings() { qputenv("MIXERLAB_SETTINGS_DIR", before_); }

 private:
  QByteArray before_;
};

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
    const QString project =
        QString::fromStdString(testing::writeTinyProject(testing::makeScratchDir("window-options")).string());
    const gui::StartupParse parsed = parse({project, "--screenshot", "/tmp/shot.png", "--scene", "queue", "--size",
                                            "1400x900", "--report-latency", "2.5"});
    QCOMPARE(parsed.error, QString());
    const gui::StartupOptions& options = parsed.options;
    QCOMPARE(options.project, project);
    QCOMPARE(options.screenshot, QString("/tmp/shot.png"));
    QCOMPARE(options.scene, QString("queue"));
    QCOMPARE(options.window_size, QSize(1400, 900));
    QVERIFY(options.report_latency_s);
    QCOMPARE(*options.report_latency_s, 2.5);
    QVERIFY(!options.generation && !options.inversion && !options.retrieval);
  }

  // A project named on the command line is opened or refused, never swapped for another: a file
  // that is not there, or a folder without a project.json, stops the start naming it; a folder
  // with one opens that file.
  void aGivenProjectMustExist() {
    const fs::path dir = testing::makeScratchDir("given-project");
    const QString missing = QString::fromStdString((dir / "nowhere" / "project.json").string());
    const gui::StartupParse gone = parse({missing});
    QVERIFY2(gone.error.contains("no project file at \"" + missing + "\"") && gone.error.contains("existing"),
             qPrintable(gone.error));
    const gui::StartupParse empty_folder = parse({QString::fromStdString(dir.string())});
    QVERIFY2(empty_folder.error.contains("is a folder without a project.json"), qPrintable(empty_folder.error));
    const fs::path project = testing::writeTinyProject(dir / "tiny");
    const gui::StartupParse folder = parse({QString::fromStdString((dir / "tiny").string())});
    QCOMPARE(folder.error, QString());
    QCOMPARE(QFileInfo(folder.options.project).canonicalFilePath(),
             QFileInfo(QString::fromStdString(project.string())).canonicalFilePath());
  }

  // --size is bounded at 8192 pixels a side, the bound itself accepted.
  void windowSizeIsBoundedAtItsLimit() {
    QCOMPARE(parse({"--size", "8192x8192"}).options.window_size, QSize(8192, 8192));
    for (const QString& size : {QString("8193x900"), QString("900x8193")}) {
      const gui::StartupParse parsed = parse({"--size", size});
      QVERIFY2(parsed.error.contains("--size \"" + size + "\" is larger than the window can be drawn") &&
                   parsed.error.contains("at most 8192x8192"),
               qPrintable(parsed.error));
      QVERIFY(!parsed.options.window_size.isValid());
    }
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

  // An interactive window saves its geometry on close; a scripted start (screenshot, latency
  // report) leaves the saved one alone, so a docs screenshot never resizes the user's workbench.
  void onlyAnInteractiveStartSavesTheWindowLayout() {
    const PrivateSettings settings("window-layout-settings");
    const QString project =
        QString::fromStdString(testing::writeTinyProject(testing::makeScratchDir("window-layout")).string());
    auto closeAfterStart = [&project](const QStringList& arguments, const QSize& size) {
      QStringList all{project};
      all << arguments;
      gui::MainWindow window;
      QVERIFY(gui::applyStartupOptions(window, parse(all).options).isEmpty());
      window.resize(size);
      window.close();
    };
    // Sizes are not compared: the offscreen screen is smaller than the window's minimum, so every
    // size becomes the minimum. What is checked is whether closing writes the geometry at all.
    const QByteArray marker("not a geometry: left by the test");
    gui::AppSettings().setWindowGeometry(marker);
    closeAfterStart({}, QSize(1500, 950));
    const QByteArray interactive = gui::AppSettings().windowGeometry();
    QVERIFY(interactive != marker && !interactive.isEmpty());
    gui::AppSettings().setWindowGeometry(marker);
    closeAfterStart({"--screenshot", "/tmp/never-written.png"}, QSize(1500, 950));
    QCOMPARE(gui::AppSettings().windowGeometry(), marker);
    closeAfterStart({"--report-latency", "60"}, QSize(1500, 950));
    QCOMPARE(gui::AppSettings().windowGeometry(), marker);
  }

  // A saved geometry larger than the screen (another monitor, an older scripted --size) is cut to
  // the screen's available area when the window opens.
  void aSavedGeometryIsCutToTheScreen() {
    const PrivateSettings settings("cut-geometry-settings");
    {
      gui::MainWindow big;
      big.resize(20000, 15000);
      gui::AppSettings().setWindowGeometry(big.saveGeometry());
    }
    gui::MainWindow window;
    QVERIFY(window.screen());
    const QSize room = window.screen()->availableGeometry().size();
    QVERIFY2(window.width() <= room.width() && window.height() <= room.height(),
             qPrintable(QString("%1x%2 on a %3x%4 screen")
                            .arg(window.width())
                            .arg(window.height())
                            .arg(room.width())
                            .arg(room.height())));
    const QSize expected =
        QSize(room.width() - gui::kFrameRoomPx, room.height() - gui::kFrameRoomPx).expandedTo(window.minimumSize());
    QCOMPARE(window.size(), expected);
  }

  // The tab pages' least height: 260 px on a screen from 650 px up, two fifths of a smaller one,
  // never under 120; the window asks its screen (offscreen: 800 px high, so 260).
  void theTabsLeastHeightFollowsASmallScreen() {
    QCOMPARE(gui::leastTabsHeightPx(1080), 260);
    QCOMPARE(gui::leastTabsHeightPx(650), 260);
    QCOMPARE(gui::leastTabsHeightPx(649), 259);
    QCOMPARE(gui::leastTabsHeightPx(420), 168);
    QCOMPARE(gui::leastTabsHeightPx(300), 120);
    QCOMPARE(gui::leastTabsHeightPx(299), 120);
    gui::MainWindow window;
    QVERIFY(window.screen());
    QCOMPARE(window.screen()->availableGeometry().height(), 800);
    QCOMPARE(window.findChild<QTabWidget*>("central-tabs")->minimumHeight(), 260);
  }

  // A scripted start that hits a problem says so on stderr and exits 1, after its screenshot (of the
  // problem) where one could be taken: an entry the Generate, Inspect or Retrieve tab refuses, a
  // project that does not parse, a screenshot that cannot be written or whose path is not a file
  // (never replaced). A start without problems exits 0.
  void aScriptedStartWithAProblemExitsWithOne_data() {
    QTest::addColumn<QString>("case_name");
    QTest::addColumn<int>("exit_code");
    QTest::addColumn<QString>("message");
    QTest::addColumn<bool>("png_written");
    QTest::newRow("clean") << "clean" << 0 << "" << true;
    QTest::newRow("refused run") << "refused run" << 1 << "--generate no-such-run:" << true;
    QTest::newRow("refused over-training") << "refused over-training" << 1 << "--over-training no-such-run:" << true;
    QTest::newRow("refused retrieval") << "refused retrieval" << 1 << "--retrieve no-such-run:" << true;
    QTest::newRow("broken project") << "broken project" << 1 << "could not open" << true;
    QTest::newRow("unwritable shot") << "unwritable shot" << 1 << "cannot write the screenshot" << false;
    QTest::newRow("shot onto a folder") << "shot onto a folder" << 1 << "the screenshot path" << false;
  }

  void aScriptedStartWithAProblemExitsWithOne() {
    QFETCH(QString, case_name);
    QFETCH(int, exit_code);
    QFETCH(QString, message);
    QFETCH(bool, png_written);
    const fs::path dir = testing::makeScratchDir("scripted-start");
    QString project = QString::fromStdString(testing::writeTinyProject(dir / "project").string());
    QString png = QString::fromStdString((dir / "shot.png").string());
    QStringList arguments;
    if (case_name == "refused run")
      arguments << "--generate"
                << "no-such-run";
    if (case_name == "refused over-training")
      arguments << "--over-training"
                << "no-such-run";
    if (case_name == "refused retrieval")
      arguments << "--retrieve"
                << "no-such-run";
    if (case_name == "broken project") {
      testing::writeText(dir / "broken.json", "{\"name\": \"x\", \"runs\": [");
      project = QString::fromStdString((dir / "broken.json").string());
    }
    if (case_name == "unwritable shot") png = QString::fromStdString((dir / "no-folder" / "shot.png").string());
    if (case_name == "shot onto a folder") {
      fs::create_directories(dir / "a-folder.png");
      png = QString::fromStdString((dir / "a-folder.png").string());
    }
    arguments.prepend(project);
    arguments << "--screenshot" << png;
    const QString gui =
        QString::fromStdString((testing::cliPath().parent_path().parent_path() / "gui" / "mixerlab-gui").string());
    QProcess process;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert("QT_QPA_PLATFORM", "offscreen");
    environment.insert("MIXERLAB_SETTINGS_DIR", QString::fromStdString((dir / "settings").string()));
    process.setProcessEnvironment(environment);
    process.start(gui, arguments);
    QVERIFY(process.waitForFinished(90000));
    const QString err = QString::fromUtf8(process.readAllStandardError());
    QCOMPARE(process.exitStatus(), QProcess::NormalExit);
    QVERIFY2(process.exitCode() == exit_code, qPrintable(QString("exit %1: %2").arg(process.exitCode()).arg(err)));
    if (message.isEmpty()) {
      QVERIFY2(!err.contains("mixerlab-gui:"), qPrintable(err));
    } else {
      QVERIFY2(err.contains("mixerlab-gui: " + message), qPrintable(err));
    }
    QCOMPARE(QFileInfo(png).isFile() && QFileInfo(png).size() > 0, png_written);
    QVERIFY(!QFileInfo(png + ".tmp").exists());
  }
};

QTEST_MAIN(TestStartupOptions)
#include "test_startup_options.moc"
