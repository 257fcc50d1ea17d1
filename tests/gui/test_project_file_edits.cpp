// The run form wrote every default into the run's entry (options of other
// families included), so project-default changes no longer reached the run, and every edit
// re-sorted and reformatted project.json. Now the form saves only what the user set, and an edit
// changes only the edited run's text: order, indentation, number spelling and other runs stay.
#include <QtTest/QtTest>

#include <QComboBox>
#include <QLineEdit>
#include <QUndoStack>

#include <fstream>

#include <nlohmann/json.hpp>

#include "app/gui/common/json_bridge.h"
#include "app/gui/project/project_document.h"
#include "app/gui/project/run_config_schema.h"
#include "app/gui/project/run_setup_dialog.h"
#include "core/config/config_schema.h"
#include "tests/test_support.h"
#include "widgets/forms/config_form.h"
#include "widgets/tables/run_comparison.h"

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
    "corpus": {"train": ")" +
                           (data / "stories-b.txt").string() + R"(", "eval": ")" + (data / "stories-a.txt").string() +
                           R"("},
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

QString demoProject() { return QString::fromStdString((testing::sourceDir() / "projects/demo/project.json").string()); }

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
    const QJsonObject initial{{"name", "new-run"},
                              {"model", QJsonObject{{"arch", "masked_mixer"}}},
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

  // The issue's case end to end: a run added through the form with one changed field is written as
  // its name, its architecture and that field, as a pure insertion into the user's file (order and
  // format of the rest kept); undo and redo restore the exact bytes. A field of another family is
  // never written, whatever the form showed before the family changed.
  void runAddedThroughTheFormWritesOnlyWhatChanged() {
    const QString project = handWrittenProject("form-add");
    const QByteArray original = readBytes(project);
    gui::ProjectDocument document;
    QCOMPARE(document.open(project), QString());
    QJsonObject initial = document.run("mixer");  // what "New run" starts from: the selected run
    initial["name"] = "new-run";
    gui::RunSetupDialog dialog(gui::ProjectSource{document.json(), document.filePath(), {}}, initial);
    auto* mixing = dialog.findChild<QComboBox*>("model.options.mixing");
    mixing->setCurrentIndex(mixing->findText("multi_head"));  // shown for the mixer, then dropped
    auto* arch = dialog.findChild<QComboBox*>("model.arch");
    arch->setCurrentIndex(arch->findText("llama"));
    auto* lr = dialog.findChild<QLineEdit*>("train.learning_rate");
    lr->selectAll();
    QTest::keyClick(lr, Qt::Key_Backspace);
    QTest::keyClicks(lr, "0.002");
    QVERIFY2(dialog.isValid(), qPrintable(dialog.errors().values().join("; ")));
    QCOMPARE(document.addRun(dialog.run()), QString());
    const QByteArray added = readBytes(project);
    const auto [p, q] = commonEnds(original, added);
    QCOMPARE(p + q, original.size());  // the user's text is all still there, byte for byte
    const QByteArray inserted = added.mid(p, added.size() - p - q);
    QVERIFY2(inserted.startsWith(",\n        {"), inserted.constData());
    const nlohmann::json run = nlohmann::json::parse(inserted.mid(1).toStdString());
    const nlohmann::json expected = {
        {"name", "new-run"}, {"model", {{"arch", "llama"}}}, {"train", {{"learning_rate", 0.002}}}};
    QCOMPARE(QString::fromStdString(run.dump()), QString::fromStdString(expected.dump()));
    document.undoStack()->undo();
    QCOMPARE(readBytes(project), original);
    document.undoStack()->redo();
    QCOMPARE(readBytes(project), added);
  }

  // A run that sets every family's keys, saved under each family in turn, keeps exactly the keys
  // the core says that family reads (common model keys, its model_keys, its options): the form
  // shows every key a family reads and writes none it does not.
  void eachFamilyKeepsExactlyTheKeysItReads() {
    const nlohmann::json schema = configSchemaJson();
    QStringList common;
    QJsonObject initial{{"name", "r"}};
    for (const auto& spec : schema.at("run")) {
      const QString key = QString::fromStdString(spec.at("key").get<std::string>());
      if (!key.startsWith("model.")) continue;
      if (!spec.contains("families")) {
        common << key;
      } else if (!spec.at("default").is_null()) {
        widgets::ConfigForm::setValueAt(initial, key, gui::toQtValue(spec.at("default")));
      }
    }
    for (const auto& family : schema.at("families")) {
      const QString arch = QString::fromStdString(family.at("name").get<std::string>());
      QStringList reads = common;
      for (const auto& k : family.at("model_keys")) reads << "model." + QString::fromStdString(k.get<std::string>());
      for (const auto& o : family.at("options"))
        reads << "model.options." + QString::fromStdString(o.at("key").get<std::string>());
      QJsonObject run = initial;
      widgets::ConfigForm::setValueAt(run, "model.arch", arch);
      gui::RunSetupDialog dialog(demoProject(), run);
      QStringList saved = widgets::flattenConfig(dialog.run()).keys();
      saved = saved.filter(QRegularExpression("^model\\."));
      for (const QString& key : saved) QVERIFY2(reads.contains(key), qPrintable(arch + " saves " + key));
      for (const QString& key : reads) {
        if (!common.contains(key)) QVERIFY2(saved.contains(key), qPrintable(arch + " drops " + key));
      }
    }
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
    QVERIFY2(inserted.startsWith(",\n        {\n            \"name\": \"gpt\",\n            \"model\": {\n             "
                                 "   \"arch\": \"gpt\""),
             inserted.constData());
    // Replace: only the llama run's edited value changes; its layout and key order stay.
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
    // Only the edited value's text changed: the one-line "model" stays one line, in the user's order.
    QCOMPARE(QString(changed), QString("0.0001"));
    QVERIFY(replaced.contains("\"model\": {\"n_heads\": 4, \"arch\": \"llama\"},\n"));
    QVERIFY(replaced.contains("\"learning_rate\": 5e-4"));  // the defaults keep their spelling
    // Remove, then undo everything: the file is the user's again, byte for byte.
    QCOMPARE(document.removeRun("mixer"), QString());
    QVERIFY(readBytes(project).startsWith(original.left(original.indexOf("{\"name\": \"mixer\""))));
    while (document.undoStack()->canUndo()) document.undoStack()->undo();
    QCOMPARE(readBytes(project), original);
  }

  // Duplicate on a fork: its full run.json is cut down to what differs from its project run.
  void forkSettingsReduceToWhatDiffers() {
    const QJsonObject parent{{"name", "mixer"},
                             {"model", QJsonObject{{"arch", "masked_mixer"}, {"d_model", 64}, {"n_layers", 2}}},
                             {"train", QJsonObject{{"learning_rate", 5e-4}, {"batch_size", 8}}}};
    QJsonObject fork = parent;
    QJsonObject train = fork.value("train").toObject();
    train["learning_rate"] = 1e-4;  // what the fork changed
    fork["train"] = train;
    const QJsonObject expected{{"name", "mixer"},
                               {"model", QJsonObject{{"arch", "masked_mixer"}}},
                               {"train", QJsonObject{{"learning_rate", 1e-4}}}};
    QCOMPARE(gui::settingsThatDiffer(fork, parent), expected);
  }
};

QTEST_MAIN(TestProjectFileEdits)
#include "test_project_file_edits.moc"
