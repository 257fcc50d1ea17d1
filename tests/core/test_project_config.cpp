// Project file tests: the demo project loads; malformed files give errors naming the file, the
// field and the expected value.
#include <QtTest/QtTest>

#include <set>

#include "core/config/project_config.h"
#include "core/models/model_registry.h"
#include "tests/test_support.h"

using namespace mixerlab;
namespace fs = std::filesystem;

namespace {
const char* kValid = R"({
  "corpus": {"train": "train.txt"},
  "tokenizer": {"vocab_size": 512},
  "defaults": {"train": {"max_steps": 10}},
  "runs": [{"name": "m", "model": {"arch": "masked_mixer", "d_model": 32, "n_layers": 2, "context_length": 16}}]
})";

QString errorFor(const std::string& json) {
  const fs::path dir = testing::makeScratchDir("project");
  testing::writeText(dir / "train.txt", "Once upon a time.\n\nThe end.\n");
  testing::writeText(dir / "project.json", json);
  try {
    loadProject(dir / "project.json");
  } catch (const std::exception& e) {
    return QString::fromStdString(e.what());
  }
  return {};
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  text.replace(text.find(from), from.size(), to);
  return text;
}
}  // namespace

class TestProjectConfig : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void demoProjectLoads() {
    auto p = loadProject(testing::sourceDir() / "projects/demo/project.json");
    QCOMPARE(p.runs.size(), size_t{2});
    QCOMPARE(p.run("mixer").model.arch, std::string("masked_mixer"));
    QCOMPARE(p.run("transformer").model.arch, std::string("llama"));
    QCOMPARE(p.run("mixer").model.context_length, int64_t{128});  // from defaults
    QVERIFY(fs::exists(p.corpus.train_path));
    QVERIFY(fs::exists(p.corpus.eval_path));
  }

  void zooProjectCoversEveryFamily() {
    auto p = loadProject(testing::sourceDir() / "projects/zoo/project.json");
    std::set<std::string> archs;
    for (const auto& run : p.runs) {
      archs.insert(run.model.arch);
      QVERIFY2(buildModel(run.model)->parameterCount() > 0, run.name.c_str());
    }
    for (const auto& a : architectures()) QVERIFY2(archs.count(a.name), ("no zoo run for " + a.name).c_str());
  }

  void validMinimalProject() { QCOMPARE(errorFor(kValid), QString()); }

  void errors_data() {
    QTest::addColumn<QString>("json");
    QTest::addColumn<QStringList>("mentions");
    const std::string v = kValid;
    QTest::newRow("malformed json") << QString::fromStdString(replaced(v, "\"runs\"", ", \"runs\""))
                                    << QStringList{"project.json:", "malformed JSON"};
    QTest::newRow("negative d_model") << QString::fromStdString(replaced(v, "\"d_model\": 32", "\"d_model\": -3"))
                                      << QStringList{"runs[0].model.d_model", "between 1 and", "-3"};
    QTest::newRow("string for integer") << QString::fromStdString(
                                               replaced(v, "\"n_layers\": 2", "\"n_layers\": \"two\""))
                                        << QStringList{"runs[0].model.n_layers", "expected an integer"};
    QTest::newRow("unknown architecture") << QString::fromStdString(replaced(v, "\"masked_mixer\"", "\"transfomer\""))
                                          << QStringList{"runs[0].model.arch", "transfomer", "llama"};
    QTest::newRow("unknown field") << QString::fromStdString(replaced(v, "\"d_model\"", "\"d_modle\""))
                                   << QStringList{"runs[0].model.d_modle", "unknown field", "d_model"};
    QTest::newRow("missing corpus file") << QString::fromStdString(replaced(v, "train.txt", "nope.txt"))
                                         << QStringList{"corpus.train", "nope.txt", "does not exist"};
    QTest::newRow("no runs") << QString::fromStdString(R"({"corpus": {"train": "train.txt"}, "runs": []})")
                             << QStringList{"runs", "non-empty array"};
    QTest::newRow("no budget") << QString::fromStdString(replaced(v, "\"max_steps\": 10", "\"seed\": 1"))
                               << QStringList{"runs[0].train.max_steps", "no budget"};
    QTest::newRow("bad schedule") << QString::fromStdString(
                                         replaced(v, "\"max_steps\": 10", "\"max_steps\": 10, \"schedule\": \"exp\""))
                                  << QStringList{"runs[0].train.schedule", "\"linear\"", "exp"};
    QTest::newRow("heads do not divide") << QString::fromStdString(replaced(v, "\"arch\": \"masked_mixer\"",
                                                                            "\"arch\": \"llama\", \"n_heads\": 5"))
                                         << QStringList{"runs[0].model.n_heads", "divisible"};
    QTest::newRow("bad family option") << QString::fromStdString(
                                              replaced(v, "\"d_model\": 32",
                                                       "\"d_model\": 32, \"options\": {\"mixing\": \"diagonal\"}"))
                                       << QStringList{"runs[0].model.options.mixing", "diagonal", "expanded"};
    QTest::newRow("unknown family option")
        << QString::fromStdString(replaced(v, "\"d_model\": 32", "\"d_model\": 32, \"options\": {\"mixng\": \"flat\"}"))
        << QStringList{"runs[0].model.options.mixng", "unknown field"};
    QTest::newRow("vocab mismatch") << QString::fromStdString(
                                           replaced(v, "\"d_model\": 32", "\"d_model\": 32, \"vocab_size\": 1000"))
                                    << QStringList{"runs[0].model.vocab_size", "512"};
    // Accepted silently, or reported without a place, before.
    QTest::newRow("duplicate key") << QString::fromStdString(
                                          replaced(v, "\"max_steps\": 10", "\"max_steps\": 10, \"max_steps\": 20"))
                                   << QStringList{"project.json:4:", "\"max_steps\" appears twice"};
    QTest::newRow("number overflow") << QString::fromStdString(replaced(v, "\"max_steps\": 10", "\"max_steps\": 1e400"))
                                     << QStringList{"project.json:4:", "1e400", "too large"};
    QTest::newRow("run named ..") << QString::fromStdString(replaced(v, "\"name\": \"m\"", "\"name\": \"..\""))
                                  << QStringList{"runs[0].name", "starts with '.'"};
    QTest::newRow("run not an object") << QString::fromStdString(R"({"corpus": {"train": "train.txt"}, "runs": [3]})")
                                       << QStringList{"runs[0]", "expected a JSON object"};
  }
  void errors() {
    QFETCH(QString, json);
    QFETCH(QStringList, mentions);
    const QString message = errorFor(json.toStdString());
    QVERIFY2(!message.isEmpty(), "expected an error");
    for (const auto& m : mentions) QVERIFY2(message.contains(m), qPrintable("'" + m + "' not in: " + message));
  }

  // 2^63 as max_steps and 2^64 as seed were reported as "got -9223372036854775808".
  void integersBeyondInt64AreQuotedAsWritten() {
    const std::string v = kValid;
    const QString range = "expected an integer between 0 and 9223372036854775807, got ";
    QString message = errorFor(replaced(v, "\"max_steps\": 10", "\"max_steps\": 9223372036854775808"));
    QVERIFY2(message.contains("runs[0].train.max_steps: " + range + "9223372036854775808"), qPrintable(message));
    QVERIFY2(!message.contains("-9223372036854775808"), qPrintable(message));
    message = errorFor(replaced(v, "\"max_steps\": 10", "\"max_steps\": 10, \"seed\": 18446744073709551616"));
    QVERIFY2(message.contains("runs[0].train.seed: " + range + "18446744073709551616"), qPrintable(message));
    message = errorFor(replaced(v, "\"max_steps\": 10", "\"max_steps\": 10, \"seed\": 1e30"));
    QVERIFY2(message.contains("runs[0].train.seed: " + range + "1e+30"), qPrintable(message));
    message = errorFor(replaced(v, "\"max_steps\": 10", "\"max_steps\": 10, \"seed\": 2.5"));
    QVERIFY2(message.contains("runs[0].train.seed: " + range + "2.5"), qPrintable(message));
    // An integral float within range still reads as the integer.
    QCOMPARE(errorFor(replaced(v, "\"max_steps\": 10", "\"max_steps\": 1e3")), QString());
  }

  // 100,000 nested arrays in the description crashed `info` (SIGSEGV), and 60,000 gave an error
  // quoting the whole 120 KB value.
  void deepOrLongValuesGiveShortMessages() {
    const std::string v = kValid;
    const auto withDescription = [&](const std::string& value) {
      return replaced(v, "\"corpus\"", "\"description\": " + value + ",\n  \"corpus\"");
    };
    // The top-level object is the first level, so the description may hold 255 nested arrays.
    for (const int levels : {256, 60000, 100000}) {
      const QString message = errorFor(withDescription(std::string(levels, '[') + std::string(levels, ']')));
      QVERIFY2(message.contains("project.json:2:") && message.contains("JSON nested deeper than 256 levels"),
               qPrintable(message.left(400)));
      QVERIFY2(message.size() < 400, qPrintable(message.left(400)));
    }
    // 255 parse; the wrong type is reported with the value cut short.
    QString message = errorFor(withDescription(std::string(255, '[') + std::string(255, ']')));
    QVERIFY2(message.contains("description: expected a string, got [[[[") && message.contains("..."),
             qPrintable(message.left(400)));
    QVERIFY2(message.size() < 400, qPrintable(message.left(400)));
    std::string wide = "[0";
    for (int i = 0; i < 30000; ++i) wide += ",0";
    message = errorFor(withDescription(wide + "]"));
    QVERIFY2(message.contains("description: expected a string, got [0,0,0") && message.size() < 400,
             qPrintable(message.left(400)));
    // A malformed file quotes a few dozen characters of an unterminated 100,000-character string.
    message = errorFor(withDescription("\"" + std::string(100000, 'x')));
    QVERIFY2(message.contains("malformed JSON") && message.size() < 600, qPrintable(message.left(600)));
  }

  void missingProjectFile() { QVERIFY_THROWS_EXCEPTION(std::exception, loadProject("/nonexistent/project.json")); }

  void unknownRunListsNames() {
    auto p = loadProject(testing::sourceDir() / "projects/demo/project.json");
    try {
      p.run("mixr");
      QFAIL("expected an error");
    } catch (const std::exception& e) {
      QVERIFY(QString(e.what()).contains("mixer, transformer"));
    }
  }
};

QTEST_APPLESS_MAIN(TestProjectConfig)
#include "test_project_config.moc"
