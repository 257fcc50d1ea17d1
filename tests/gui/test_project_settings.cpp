// Widget tests of the project settings (offscreen): the dialog's fields are the core's project
// fields plus the defaults every family reads; edits are checked by the real parser against the
// project's runs (a bad value on its field, a run the settings break by name, a missing corpus
// file), and saved through the project document with only what changed written, the runs' bytes
// kept and undo restoring the file. A new project stores its corpus relative to its folder and
// holds the research's pair with the budget in its defaults; the window's File menu opens the dialog.
#include <QtTest/QtTest>

#include <QAction>
#include <QComboBox>
#include <QFileDialog>
#include <QJsonArray>
#include <QLineEdit>
#include <QMenuBar>
#include <QPushButton>
#include <QUndoStack>

#include <nlohmann/json.hpp>

#include "app/gui/project/project_document.h"
#include "app/gui/project/project_file.h"
#include "app/gui/project/project_settings_dialog.h"
#include "app/gui/project/project_settings_schema.h"
#include "app/gui/shell/main_window.h"
#include "core/config/config_schema.h"
#include "core/config/project_config.h"
#include "core/util/atomic_file.h"
#include "tests/test_support.h"
#include "widgets/forms/config_form.h"

using namespace mixerlab;
using mixerlab::testing::demoTrainCorpus;
using mixerlab::testing::writeText;
namespace fs = std::filesystem;

namespace {

QString q(const std::string& s) { return QString::fromStdString(s); }

// A project in `dir` on its own corpus files (data/train.txt, data/eval.txt), written by hand
// with its runs on one line each, so their bytes can be followed through an edit.
fs::path writeProject(const fs::path& dir, const std::string& runs) {
  fs::create_directories(dir / "data");
  const std::string stories = readFile(demoTrainCorpus());
  writeText(dir / "data/train.txt", stories);
  writeText(dir / "data/eval.txt", stories.substr(0, stories.size() / 4));
  writeText(dir / "project.json",
            "{\n  \"name\": \"mine\",\n  \"corpus\": {\"train\": \"data/train.txt\", \"format\": \"blank_line\"},\n"
            "  \"tokenizer\": {\"vocab_size\": 512},\n  \"defaults\": {\"train\": {\"max_steps\": 20}},\n  \"runs\": " +
                runs + "\n}\n");
  return dir / "project.json";
}

const std::string kRuns =
    "[\n    {\"name\": \"mixer\", \"model\": {\"arch\": \"masked_mixer\", \"d_model\": 32}},\n"
    "    {\"name\": \"big-vocab\", \"model\": {\"arch\": \"llama\", \"n_heads\": 4, \"vocab_size\": 512}}\n  ]";

void typeInto(QWidget& dialog, const QString& key, const QString& text) {
  auto* edit = dialog.findChild<QLineEdit*>(key);
  QVERIFY2(edit, qPrintable("no line edit " + key));
  edit->selectAll();
  QTest::keyClick(edit, Qt::Key_Backspace);
  QTest::keyClicks(edit, text);
}

}  // namespace

class TestProjectSettings : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  // Every project field the core declares is a field; the defaults are the training settings and
  // the context length that every family reads (a family's own settings stay in its runs).
  void schemaHoldsTheProjectFieldsAndTheSharedDefaults() {
    QSet<QString> keys;
    for (const widgets::FieldSpec& f : gui::projectSettingsSchema()) keys.insert(f.key);
    for (const FieldSpec& spec : projectFieldSpecs()) QVERIFY2(keys.contains(q(spec.key)), spec.key.c_str());
    int shared_train = 0;
    for (const FieldSpec& spec : runFieldSpecs()) {
      const QString key = "defaults." + q(spec.key);
      const bool shared =
          spec.families.empty() && (spec.key.rfind("train.", 0) == 0 || spec.key == "model.context_length");
      if (spec.families.empty() && spec.key.rfind("train.", 0) == 0) ++shared_train;
      if (shared) QVERIFY2(keys.contains(key), qPrintable(key));
      if (!spec.families.empty()) QVERIFY2(!keys.contains(key), qPrintable(key));
    }
    QVERIFY(shared_train > 10);
    QVERIFY(!keys.contains("defaults.model.d_model"));
    QVERIFY(keys.contains("tokenizer.vocab_size") && keys.contains("corpus.format") && keys.contains("corpus.eval"));
  }

  // New project: a corpus inside the folder is stored relative to it, one outside absolute; the
  // research's pair is there with the budget in the defaults.
  void aNewProjectStoresItsCorpusRelative() {
    const fs::path dir = testing::makeScratchDir("new-project");
    fs::create_directories(dir / "p/data");
    writeText(dir / "p/data/c.txt", readFile(demoTrainCorpus()));
    QString file;
    QCOMPARE(gui::createProject(q((dir / "p").string()), q((dir / "p/data/c.txt").string()), &file), QString());
    const nlohmann::json inside = nlohmann::json::parse(readFile(file.toStdString()));
    QCOMPARE(q(inside.at("corpus").at("train").get<std::string>()), QString("data/c.txt"));
    const ProjectConfig parsed = loadProject(file.toStdString());
    QCOMPARE(int(parsed.runs.size()), 2);
    QCOMPARE(q(parsed.runs[0].model.arch), QString("masked_mixer"));
    QCOMPARE(q(parsed.runs[1].model.arch), QString("llama"));
    for (const RunConfig& run : parsed.runs) QCOMPARE(run.train.max_steps, int64_t(gui::kNewProjectSteps));
    QCOMPARE(parsed.tokenizer.vocab_size, gui::kNewProjectVocabulary);
    QVERIFY(!inside.at("runs")[0].contains("train"));  // the budget is the defaults', not the run's

    QCOMPARE(gui::createProject(q((dir / "q").string()), q((dir / "p/data/c.txt").string()), &file), QString());
    const nlohmann::json outside = nlohmann::json::parse(readFile(file.toStdString()));
    QCOMPARE(q(outside.at("corpus").at("train").get<std::string>()),
             q(fs::absolute(dir / "p/data/c.txt").lexically_normal().string()));
    QVERIFY(gui::createProject(q((dir / "q").string()), q((dir / "p/data/c.txt").string()), &file)
                .contains("already exists"));
    QCOMPARE(gui::projectRelativePath(q((dir / "p").string()), q((dir / "p/a/../b.txt").string())), QString("b.txt"));
    QCOMPARE(gui::projectRelativePath(q((dir / "p").string()), q((dir / "pq/b.txt").string())),
             q((dir / "pq/b.txt").string()));
  }

  // The dialog shows the file's values, saves only what the file said or what now differs from
  // the default, and the document writes it with the runs' bytes kept; undo restores the file.
  void settingsAreEditedAndSaved() {
    const fs::path dir = testing::makeScratchDir("project-settings");
    const fs::path file = writeProject(dir, kRuns);
    const std::string before = readFile(file);
    gui::ProjectDocument document;
    QCOMPARE(document.open(q(file.string())), QString());
    gui::ProjectSettingsDialog dialog(gui::ProjectSource{document.json(), document.filePath(), {}});
    QVERIFY2(dialog.isValid(), qPrintable(QStringList(dialog.errors().values()).join("; ")));
    QCOMPARE(dialog.findChild<QComboBox*>("corpus.format")->currentText(), QString("blank_line"));
    QCOMPARE(dialog.findChild<QLineEdit*>("tokenizer.vocab_size")->text(), QString("512"));
    // Unchanged: exactly what the file says (no default written out).
    QCOMPARE(dialog.settings(), gui::projectSettingsOf(document.json()));

    typeInto(dialog, "defaults.train.max_steps", "77");
    typeInto(dialog, "corpus.eval_fraction", "0.9");  // the bound itself is allowed
    // The browse button: its file dialog opens in the project folder; the file chosen is stored
    // relative to it.
    QString opened_in;
    QTimer::singleShot(0, [&] {
      auto* files = qobject_cast<QFileDialog*>(QApplication::activeModalWidget());
      if (files == nullptr) return;
      opened_in = files->directory().absolutePath();
      files->selectFile(q((dir / "data/eval.txt").string()));
      QMetaObject::invokeMethod(files, "accept", Qt::QueuedConnection);
    });
    auto* browse = dialog.findChild<QPushButton*>("browse-corpus.eval");
    QVERIFY(browse != nullptr);
    browse->click();
    QCOMPARE(opened_in, q(fs::canonical(dir).string()));
    QVERIFY2(dialog.isValid(), qPrintable(QStringList(dialog.errors().values()).join("; ")));
    QVERIFY(dialog.okButton()->isEnabled());
    const QJsonObject saved = dialog.settings();
    QCOMPARE(widgets::ConfigForm::valueAt(saved, "corpus.eval").toString(), QString("data/eval.txt"));
    QCOMPARE(widgets::ConfigForm::valueAt(saved, "defaults.train.max_steps").toInt(), 77);
    QCOMPARE(widgets::ConfigForm::valueAt(saved, "corpus.eval_fraction").toDouble(), 0.9);
    QVERIFY(widgets::ConfigForm::valueAt(saved, "corpus.split_seed").isUndefined());
    QVERIFY(widgets::ConfigForm::valueAt(saved, "defaults.train.batch_size").isUndefined());
    QVERIFY(!saved.value("defaults").toObject().contains("model"));
    QVERIFY(!saved.contains("runs"));

    QCOMPARE(document.replaceSettings(saved), QString());
    const std::string after = readFile(file);
    QVERIFY2(after.find("\"runs\": " + kRuns) != std::string::npos, after.c_str());
    const ProjectConfig parsed = loadProject(file);
    QCOMPARE(parsed.runs[0].train.max_steps, int64_t(77));
    QCOMPARE(q(fs::path(parsed.corpus.eval_path).filename().string()), QString("eval.txt"));
    QCOMPARE(q(parsed.name), QString("mine"));
    document.undoStack()->undo();
    QCOMPARE(q(readFile(file)), q(before));
  }

  // A bad value is shown on its field and OK stays off; every problem at once; a setting that
  // breaks a run names the run.
  void badSettingsAreShownWhereTheyAre() {
    const fs::path dir = testing::makeScratchDir("project-settings-bad");
    const fs::path file = writeProject(dir, kRuns);
    gui::ProjectDocument document;
    QCOMPARE(document.open(q(file.string())), QString());
    gui::ProjectSettingsDialog dialog(gui::ProjectSource{document.json(), document.filePath(), {}});
    typeInto(dialog, "corpus.eval_fraction", "0.91");
    typeInto(dialog, "defaults.train.batch_size", "0");
    typeInto(dialog, "corpus.train", "data/missing.txt");
    const QMap<QString, QString> errors = dialog.errors();
    QVERIFY2(errors.contains("corpus.eval_fraction") && errors.contains("defaults.train.batch_size") &&
                 errors.contains("corpus.train"),
             qPrintable(QStringList(errors.keys()).join(", ")));
    QVERIFY2(
        errors.value("corpus.train").contains("missing.txt") && errors.value("corpus.train").contains("does not exist"),
        qPrintable(errors.value("corpus.train")));
    QVERIFY(dialog.form()->hasFieldError("defaults.train.batch_size"));
    QVERIFY(!dialog.okButton()->isEnabled());
    typeInto(dialog, "corpus.eval_fraction", "0.05");
    typeInto(dialog, "defaults.train.batch_size", "8");
    typeInto(dialog, "corpus.train", "data/train.txt");
    QVERIFY2(dialog.isValid(), qPrintable(QStringList(dialog.errors().values()).join("; ")));

    // The vocabulary: the run that sets its own vocab_size keeps it, so a new tokenizer size
    // breaks that run, by name, with the parser's fix.
    typeInto(dialog, "tokenizer.vocab_size", "1024");
    const QString general = dialog.errors().value(QString());
    QVERIFY2(general.startsWith("run \"big-vocab\" (model.vocab_size)") && general.contains("1024"),
             qPrintable(general));
    QVERIFY(!dialog.okButton()->isEnabled());
  }

  // File > Project settings opens the dialog on the open project; OK writes the settings.
  void theWindowOpensTheSettings() {
    const fs::path dir = testing::makeScratchDir("project-settings-window");
    const fs::path file = writeProject(dir, kRuns);
    gui::MainWindow window;
    QCOMPARE(window.openProject(q(file.string())), QString());
    QAction* action = nullptr;
    for (QAction* a : window.menuBar()->findChildren<QAction*>()) {
      if (a->text() == "Project &settings...") action = a;
    }
    QVERIFY(action != nullptr);
    QCOMPARE(action->shortcut(), QKeySequence("Ctrl+Shift+E"));
    bool edited = false;
    QTimer::singleShot(0, [&] {
      auto* dialog = qobject_cast<gui::ProjectSettingsDialog*>(QApplication::activeModalWidget());
      if (dialog == nullptr) return;
      typeInto(*dialog, "description", "my own study");
      edited = true;
      dialog->okButton()->click();
    });
    action->trigger();
    QVERIFY(edited);
    QCOMPARE(q(loadProject(file).description), QString("my own study"));
  }
};

QTEST_MAIN(TestProjectSettings)
#include "test_project_settings.moc"
