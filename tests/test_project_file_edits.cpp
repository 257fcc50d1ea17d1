// Issue 14, bug 3: the run form wrote every default into the run's entry (options of other
// families included), so project-default changes no longer reached the run, and every edit
// re-sorted and reformatted project.json. Now the form saves only what the user set, and an edit
// changes only the edited run's text: order, indentation, number spelling and other runs stay.
#include <QtTest/QtTest>

#include <QComboBox>
#include <QLineEdit>
#include <QUndoStack>

#include <fstream>

#include <nlohmann/json.hpp>

#include "app/gui/project_document.h"
#include "app/gui/project_text_edit.h"
#include "app/gui/run_config_schema.h"
#include "app/gui/run_setup_dialog.h"
#include "tests/test_support.h"

using namespace mixerlab;
namespace fs = std::filesystem;

namespace {
QByteArray readBytes(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// A project as a person writes it: 4-space indent, keys not sorted, numbers spelled their way.
QString handWrittenProject(const std::string& tag) {
  const fs::path dir = testing::makeScratchDir(tag);
  const fs::path data = testing::sourceDir() / "projects/demo/data";
  const std::string text = R"({
    "name": "hand-written",
    "corpus": {"train": ")" + (data / "stories-b.txt").string() + R"(", "eval": ")" +
                           (data / "stories-a.txt").string() + R"("},
    "tokenizer": {"vocab_size": 2048},
    "defaults": {
        "train": {"max_steps": 20, "learning_rate": 5e-4, "batch_size": 8},
        "model": {"context_length": 64, "d_model": 64, "n_layers": 2}
    },
    "runs": [
        {"name": "mixer", "model": {"arch": "masked_mixer"}},
        {
            "name": "llama",
            "model": {"n_heads": 4, "arch": "llama"},
            "train": {"learning_rate": 3.0e-4}
        }
    ]
}
)";
  testing::writeText(dir / "project.json", text);
  return QString::fromStdString((dir / "project.json").string());
}

// (common prefix, common suffix) byte counts of two texts.
QPair<int, int> commonEnds(const QByteArray& a, const QByteArray& b) {
  int p = 0;
  while (p < a.size() && p < b.size() && a[p] == b[p]) ++p;
  int q = 0;
  while (q < a.size() - p && q < b.size() - p && a[a.size() - 1 - q] == b[b.size() - 1 - q]) ++q;
  return {p, q};
}
}  // namespace

class TestProjectFileEdits : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void formSavesOnlyWhatTheUserSet() {
    const QString project = handWrittenProject("form-saves-set");
    const QJsonObject initial{{"name", "new-run"}, {"model", QJsonObject{{"arch", "masked_mixer"}}},
                              {"train", QJsonObject{{"learning_rate", 5e-4}}}};  // set, though equal to the default
    gui::RunSetupDialog dialog(project, initial);
    auto* d_model = dialog.findChild<QLineEdit*>("model.d_model");
    d_model->selectAll();
    QTest::keyClick(d_model, Qt::Key_Backspace);
    QTest::keyClicks(d_model, "96");
    QVERIFY2(dialog.isValid(), qPrintable(dialog.errors().values().join("; ")));
    const QJsonObject expected{{"name", "new-run"},
                               {"model", QJsonObject{{"arch", "masked_mixer"}, {"d_model", 96}}},
                               {"train", QJsonObject{{"learning_rate", 5e-4}}}};
    QCOMPARE(dialog.run(), expected);
    // Switching the family drops what only the mixer has; nothing of gpt's defaults is written.
    auto* arch = dialog.findChild<QComboBox*>("model.arch");
    arch->setCurrentIndex(arch->findText("gpt"));
    const QJsonObject model = dialog.run().value("model").toObject();
    QCOMPARE(model.keys(), (QStringList{"arch", "d_model"}));
    QVERIFY(dialog.fullRun().value("model").toObject().contains("n_heads"));  // shown, not saved
  }

  void editsChangeOnlyTheEditedRunsText() {
    const QString project = handWrittenProject("splice");
    const QByteArray original = readBytes(project);
    gui::ProjectDocument document;
    QCOMPARE(document.open(project), QString());
    // Add: a pure insertion after the last run, in the file's 8-space run indentation.
    QCOMPARE(document.addRun(QJsonObject{{"name", "gpt"}, {"model", QJsonObject{{"arch", "gpt"}, {"n_heads", 4}}}}),
             QString());
    const QByteArray added = readBytes(project);
    auto [p, q] = commonEnds(original, added);
    QCOMPARE(p + q, original.size());  // nothing of the original changed
    const QByteArray inserted = added.mid(p, added.size() - p - q);
    QVERIFY2(inserted.startsWith(",\n        {\n            \"name\": \"gpt\",\n            \"model\": {\n                \"arch\": \"gpt\""),
             inserted.constData());
    // Replace: only the llama run's text changes, and it keeps its key order.
    QJsonObject llama = document.run("llama");
    QJsonObject train = llama.value("train").toObject();
    train["learning_rate"] = 1e-4;
    llama["train"] = train;
    QCOMPARE(document.replaceRun("llama", llama), QString());
    const QByteArray replaced = readBytes(project);
    std::tie(p, q) = commonEnds(added, replaced);
    const int llama_at = added.indexOf("{\n            \"name\": \"llama\"");
    QVERIFY(p >= llama_at && p + q >= added.indexOf("\"gpt\"") - 200);
    const QByteArray changed = replaced.mid(p, replaced.size() - p - q);
    QVERIFY2(!changed.contains("mixer") && !changed.contains("defaults"), changed.constData());
    QVERIFY(replaced.indexOf("\"n_heads\": 4,\n                \"arch\": \"llama\"") > 0);  // the user's order
    QVERIFY(replaced.contains("\"learning_rate\": 5e-4"));  // the defaults keep their spelling
    // Remove, then undo everything: the file is the user's again, byte for byte.
    QCOMPARE(document.removeRun("mixer"), QString());
    QVERIFY(readBytes(project).startsWith(original.left(original.indexOf("{\"name\": \"mixer\""))));
    while (document.undoStack()->canUndo()) document.undoStack()->undo();
    QCOMPARE(readBytes(project), original);
  }

  void splicingFindsTheRunsArrayOnly() {
    // A "runs" key inside another object, strings with brackets and escaped quotes: not the array.
    const std::string text = "{\"note\": \"[\\\"runs\\\"]\", \"defaults\": {\"runs\": []}, \"runs\": [{\"name\": \"a\"}]}\n";
    const auto added = gui::spliceAddRun(text, nlohmann::ordered_json{{"name", "b"}});
    QVERIFY(added.has_value());
    QCOMPARE(QString::fromStdString(*added),
             QString("{\"note\": \"[\\\"runs\\\"]\", \"defaults\": {\"runs\": []}, \"runs\": [{\"name\": \"a\"}, "
                     "{\"name\":\"b\"}]}\n"));
    QCOMPARE(QString::fromStdString(*gui::spliceRemoveRun(*added, 0)),
             QString("{\"note\": \"[\\\"runs\\\"]\", \"defaults\": {\"runs\": []}, \"runs\": [{\"name\":\"b\"}]}\n"));
    QVERIFY(!gui::spliceAddRun("[1, 2]", nlohmann::ordered_json::object()).has_value());
  }
};

QTEST_MAIN(TestProjectFileEdits)
#include "test_project_file_edits.moc"
