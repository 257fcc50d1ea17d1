// Run-setup tests (offscreen): the schema form is filled through its real editors and yields a run
// the core's project parser accepts; invalid values turn their field red with the core's message;
// changing the architecture shows and hides family fields; the cost preview of the demo mixer shows
// its parameter count; the config diff view highlights exactly the differing keys.
#include <QtTest/QtTest>

#include <QCheckBox>
#include <QComboBox>
#include <QGroupBox>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QScreen>
#include <QTableWidget>

#include "app/gui/common/screen_fit.h"
#include "app/gui/project/run_config_schema.h"
#include "app/gui/project/run_setup_dialog.h"
#include "core/analysis/format.h"
#include "core/config/project_config.h"
#include "core/models/model_registry.h"
#include "tests/test_support.h"
#include "widgets/forms/config_form.h"
#include "widgets/tables/config_diff_view.h"

using namespace mixerlab;

namespace {
QString demoProject() { return QString::fromStdString((testing::sourceDir() / "projects/demo/project.json").string()); }

QString shotDir() {
  const QString dir = QDir::tempPath() + "/helperE";
  QDir().mkpath(dir);
  return dir;
}

// Lets posted layout requests run so that screenshots show the settled layout.
bool grabTo(QWidget& widget, const QString& file) {
  for (int i = 0; i < 3; ++i) QCoreApplication::processEvents();
  return widget.grab().save(shotDir() + "/" + file);
}

void typeInto(gui::RunSetupDialog& dialog, const QString& key, const QString& text) {
  auto* edit = dialog.findChild<QLineEdit*>(key);
  QVERIFY2(edit, qPrintable("no line edit " + key));
  edit->selectAll();
  QTest::keyClick(edit, Qt::Key_Backspace);
  QTest::keyClicks(edit, text);
}

void choose(gui::RunSetupDialog& dialog, const QString& key, const QString& value) {
  auto* combo = dialog.findChild<QComboBox*>(key);
  QVERIFY2(combo, qPrintable("no combo box " + key));
  const int index = combo->findText(value);
  QVERIFY2(index >= 0, qPrintable(value));
  combo->setCurrentIndex(index);
}
}  // namespace

class TestRunSetup : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  // The dialog checks edits against the project JSON it was given (the open document), not by
  // re-reading project.json on every keystroke: it keeps validating after the file is gone.
  void editsAreCheckedWithoutRereadingTheFile() {
    const auto dir = testing::makeScratchDir("setup-source");
    std::filesystem::copy(testing::sourceDir() / "projects/demo/project.json", dir / "project.json");
    std::filesystem::create_directories(dir / "data");
    for (const char* f : {"stories-a.txt", "stories-b.txt"}) {
      std::filesystem::copy(testing::sourceDir() / "projects/demo/data" / f, dir / "data" / f);
    }
    const QString file = QString::fromStdString((dir / "project.json").string());
    const gui::ProjectSource source = gui::readProjectSource(file);
    QVERIFY(source.error.isEmpty());
    gui::RunSetupDialog dialog(source, gui::projectRun(file, "mixer"));
    std::filesystem::remove(dir / "project.json");
    typeInto(dialog, "model.d_model", "128");
    QVERIFY2(dialog.isValid(), qPrintable(dialog.errors().values().join("; ")));
    typeInto(dialog, "model.d_model", "-3");
    QVERIFY(dialog.errors().contains("model.d_model"));
  }

  void filledFormIsAcceptedByTheCore() {
    gui::RunSetupDialog dialog(demoProject(), QJsonObject{{"name", "new-run"}});
    dialog.show();
    typeInto(dialog, "name", "llama-small");
    choose(dialog, "model.arch", "llama");
    typeInto(dialog, "model.d_model", "192");
    typeInto(dialog, "model.n_layers", "3");
    typeInto(dialog, "model.n_heads", "6");
    typeInto(dialog, "train.learning_rate", "0.001");
    typeInto(dialog, "train.max_steps", "40");
    dialog.findChild<QCheckBox*>("model.tie_weights")->setChecked(true);
    QVERIFY2(dialog.isValid(), qPrintable(QStringList(dialog.errors().values()).join("; ")));
    QVERIFY(dialog.okButton()->isEnabled());
    const QJsonObject run = dialog.run();
    // The real parser accepts the project with this run; the values are the ones typed.
    QFile file(demoProject());
    QVERIFY(file.open(QIODevice::ReadOnly));
    nlohmann::json document = nlohmann::json::parse(file.readAll().toStdString());
    document["runs"] = nlohmann::json::array({nlohmann::json::parse(QJsonDocument(run).toJson().toStdString())});
    const ProjectConfig project = parseProject(document, demoProject().toStdString());
    const RunConfig& rc = project.run("llama-small");
    QCOMPARE(rc.model.arch, std::string("llama"));
    QCOMPARE(rc.model.d_model, int64_t(192));
    QCOMPARE(rc.model.n_layers, int64_t(3));
    QCOMPARE(rc.model.n_heads, int64_t(6));
    QCOMPARE(rc.model.context_length, int64_t(128));  // the project's default, shown and kept
    QVERIFY(rc.model.tie_weights);
    QCOMPARE(rc.train.learning_rate, 0.001);
    QCOMPARE(rc.train.max_steps, int64_t(40));
    QVERIFY(!run.value("model").toObject().contains("options"));  // no mixer options on a llama run
  }

  // The run form asks for 1040x860 and gets the screen's available area less a frame's room on a
  // smaller screen (the offscreen one is 800x600, smaller than a 1024x700 laptop): OK, Sweep and
  // Cancel stay on screen and the fields scroll.
  void theRunFormFitsASmallScreen() {
    gui::RunSetupDialog dialog(demoProject(), gui::projectRun(demoProject(), "mixer"));
    dialog.show();
    QVERIFY(dialog.screen());
    const QSize room = dialog.screen()->availableGeometry().size();
    QVERIFY2(room.width() < 1040 && room.height() < 860, "the test needs a screen smaller than the form's wish");
    QCOMPARE(dialog.size(), QSize(room.width() - gui::kFrameRoomPx, room.height() - gui::kFrameRoomPx));
    const QRect ok(dialog.okButton()->mapTo(&dialog, QPoint(0, 0)), dialog.okButton()->size());
    QVERIFY2(dialog.rect().contains(ok), "the OK button is outside the dialog");
  }

  void invalidValuesTurnTheFieldRed() {
    gui::RunSetupDialog dialog(demoProject(), gui::projectRun(demoProject(), "mixer"));
    dialog.show();
    QVERIFY(dialog.isValid());
    QVERIFY(grabTo(dialog, "run-setup-valid.png"));
    typeInto(dialog, "model.d_model", "-3");
    QVERIFY(!dialog.isValid());
    QVERIFY(!dialog.okButton()->isEnabled());
    QVERIFY(dialog.form()->hasFieldError("model.d_model"));
    QVERIFY2(dialog.form()->fieldError("model.d_model").contains("expected an integer between 1 and 1048576, got -3"),
             qPrintable(dialog.form()->fieldError("model.d_model")));
    QVERIFY(dialog.findChild<QLineEdit*>("model.d_model")->styleSheet().contains("#ffe4e4"));
    QVERIFY(dialog.findChild<QLabel*>("model.d_model.error")->isVisible());
    QVERIFY(dialog.form()->previewText().startsWith("(no preview"));
    QVERIFY(grabTo(dialog, "run-setup-error.png"));
    typeInto(dialog, "model.d_model", "12x");  // not a number: the core names the text
    QVERIFY(dialog.form()->fieldError("model.d_model").contains("got \"12x\""));
    typeInto(dialog, "model.d_model", "256");  // fixed: the red goes away
    QVERIFY(dialog.isValid());
    QVERIFY(!dialog.form()->hasFieldError("model.d_model"));
    QVERIFY(dialog.findChild<QLineEdit*>("model.d_model")->styleSheet().isEmpty());
    QVERIFY(dialog.okButton()->isEnabled());

    choose(dialog, "model.arch", "llama");
    typeInto(dialog, "model.d_model", "128");
    typeInto(dialog, "model.n_heads", "3");
    QVERIFY(dialog.form()->fieldError("model.n_heads").contains("must be divisible by n_heads (3)"));
    QVERIFY(!dialog.okButton()->isEnabled());
    QVERIFY(grabTo(dialog, "run-setup-heads-error.png"));
    typeInto(dialog, "model.n_heads", "4");
    QVERIFY(dialog.isValid());

    typeInto(dialog, "train.max_steps", "0");  // no budget: an error on a field of another group
    QVERIFY(dialog.form()->fieldError("train.max_steps").contains("no budget set"));
  }

  // Every error at once, and an error appearing never moves the fields below.
  void everyErrorAtOnceWithoutShiftingTheLayout() {
    gui::RunSetupDialog dialog(demoProject(), gui::projectRun(demoProject(), "mixer"));
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    auto* below = dialog.findChild<QWidget*>("model.n_layers");  // under d_model, in its group
    QVERIFY(below);
    QCoreApplication::processEvents();
    const int y_before = below->mapTo(&dialog, QPoint()).y();
    typeInto(dialog, "model.d_model", "-3");
    typeInto(dialog, "train.batch_size", "0");
    typeInto(dialog, "train.warmup_steps", "-1");
    QVERIFY(dialog.findChild<QLabel*>("model.d_model.error")->isVisible());
    QVERIFY(dialog.form()->hasFieldError("model.d_model"));
    QVERIFY2(dialog.form()->hasFieldError("train.batch_size"), qPrintable(dialog.errors().keys().join(",")));
    QVERIFY(dialog.form()->hasFieldError("train.warmup_steps"));
    QCoreApplication::processEvents();
    QCOMPARE(below->mapTo(&dialog, QPoint()).y(), y_before);
  }

  // Every problem is also listed in one place (field label and message, the
  // run-level ones too), and neither that list nor a run-level problem moves the fields.
  void problemsAreListedWithoutMovingTheFields() {
    gui::RunSetupDialog dialog(demoProject(), gui::projectRun(demoProject(), "mixer"));
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    auto* list = dialog.findChild<QListWidget*>("problems");
    QVERIFY(list);
    QCOMPARE(list->count(), 0);
    QVERIFY(!list->visibleRegion().isEmpty());  // in view, not at the bottom of the scrolled form
    auto settle = [] {
      for (int i = 0; i < 3; ++i) QCoreApplication::processEvents();
    };
    // The dialog's own check: three invalid fields, three entries.
    typeInto(dialog, "model.d_model", "-3");
    typeInto(dialog, "train.batch_size", "0");
    typeInto(dialog, "train.warmup_steps", "-1");
    QCOMPARE(dialog.errors().size(), 3);
    QCOMPARE(list->count(), 3);
    typeInto(dialog, "model.d_model", "256");
    typeInto(dialog, "train.batch_size", "16");
    typeInto(dialog, "train.warmup_steps", "30");
    QCOMPARE(list->count(), 0);
    choose(dialog, "model.arch", "llama");  // a family with hidden rows in a shown group
    settle();
    const QStringList keys{"name", "model.d_model", "model.ff_mult", "model.tie_weights", "train.batch_size"};
    QMap<QString, int> y_before;
    for (const QString& key : keys) y_before[key] = dialog.form()->editor(key)->mapTo(&dialog, QPoint()).y();
    dialog.form()->setFieldErrors({{"", "corpus missing"},
                                   {"model.options.mixing", "bad"},
                                   {"model.d_model", "too big"},
                                   {"train.batch_size", "expected an integer"},
                                   {"train.eval_every", "too small"}});
    settle();
    QCOMPARE(list->count(), 5);
    QStringList texts;
    for (int i = 0; i < list->count(); ++i) texts << list->item(i)->text();
    const QString all = texts.join('\n');
    QVERIFY2(all.contains("d_model (D): too big") && all.contains("Batch size: expected an integer") &&
                 all.contains("corpus missing") && all.contains("model.options.mixing: bad") &&
                 all.contains("too small"),
             qPrintable(all));
    for (const QString& key : keys) {
      const int y = dialog.form()->editor(key)->mapTo(&dialog, QPoint()).y();
      QVERIFY2(y == y_before[key], qPrintable(key + QString(" moved from %1 to %2").arg(y_before[key]).arg(y)));
    }
    QVERIFY(grabTo(dialog, "run-setup-problems.png"));
    // Choosing a listed problem takes the keyboard to its field.
    const int row = texts.indexOf(QRegularExpression("^Batch size: .*"));
    QVERIFY(row >= 0);
    Q_EMIT list->itemActivated(list->item(row));
    QCOMPARE(QApplication::focusWidget(), dialog.form()->editor("train.batch_size"));
    dialog.form()->setFieldErrors({});
    QCOMPARE(list->count(), 0);
  }

  // The device is a choice of what this machine has, the cadences are in the
  // form, and the preview estimates the wall time from this machine's measured speed.
  void deviceCadenceAndWallTime() {
    gui::RunSetupDialog dialog(demoProject(), gui::projectRun(demoProject(), "mixer"));
    auto* device = dialog.findChild<QComboBox*>("train.device");
    QVERIFY(device);
    QVERIFY(device->findText("cpu") >= 0 && device->findText("auto") >= 0);
    for (const char* key : {"train.eval_every", "train.log_every", "train.checkpoint_every"}) {
      QVERIFY2(dialog.findChild<QWidget*>(key), key);
    }
    QVERIFY(dialog.form()->previewText().contains("estimated wall time: no measured run yet"));
    dialog.setMachineSpeed(1e9, 2);
    // The demo mixer: 300 steps x 16 x 128 tokens x its training FLOPs per token at 1 GFLOP/s.
    const ProjectConfig project = loadProject(demoProject().toStdString(), CorpusFiles::MayBeMissing);
    const RunConfig& mixer = project.run("mixer");
    QCOMPARE(mixer.train.max_steps * mixer.train.batch_size * mixer.model.context_length, int64_t(300 * 16 * 128));
    const double seconds =
        300.0 * 16 * 128 * estimateCost(mixer.model, mixer.train.batch_size).training_flops_per_token / 1e9;
    const QString preview = dialog.form()->previewText();
    QVERIFY2(preview.contains("estimated wall time: " + QString::fromStdString(formatDuration(seconds)) + " (") &&
                 preview.contains("1.0 GFLOP/s over 2 runs"),
             qPrintable(preview + "\nexpected " + QString::fromStdString(formatDuration(seconds))));
    dialog.setMachineSpeed(2e9, 3);  // twice as fast: half the time
    QVERIFY2(dialog.form()->previewText().contains(
                 "estimated wall time: " + QString::fromStdString(formatDuration(seconds / 2)) + " ("),
             qPrintable(dialog.form()->previewText()));
  }

  void reservedNamesAreRejected() {
    gui::RunSetupDialog dialog(demoProject(), gui::projectRun(demoProject(), "mixer"));
    dialog.setReservedNames({"mixer", "transformer"});
    QVERIFY(dialog.form()->fieldError("name").contains("already has a run named"));
    typeInto(dialog, "name", "mixer-copy");
    QVERIFY(dialog.isValid());
  }

  void errorsWithoutAShownFieldGoToTheGeneralLabel() {
    widgets::ConfigForm form;
    form.setSchema(gui::runSchema());
    form.setValues(QJsonObject{{"name", "x"}, {"model", QJsonObject{{"arch", "llama"}}}});
    form.setFieldErrors({{"", "corpus missing"}, {"model.options.mixing", "bad"}, {"model.d_model", "too big"}});
    QVERIFY(form.generalError().contains("corpus missing"));
    QVERIFY(form.generalError().contains("model.options.mixing: bad"));  // hidden for llama
    QCOMPARE(form.fieldError("model.d_model"), QString("too big"));
    form.setFieldErrors({});
    QVERIFY(form.generalError().isEmpty());
    QVERIFY(!form.hasFieldError("model.d_model"));
  }

  void architectureShowsAndHidesFamilyFields() {
    gui::RunSetupDialog dialog(demoProject(), gui::projectRun(demoProject(), "mixer"));
    dialog.show();
    auto visible = [&](const QString& key) { return dialog.findChild<QWidget*>(key)->isVisible(); };
    QVERIFY(visible("model.options.mixing"));
    QVERIFY(visible("model.kernel_size"));
    QVERIFY(!visible("model.n_heads"));
    QVERIFY(!visible("model.options.dropout"));
    choose(dialog, "model.arch", "gpt");
    QVERIFY(!visible("model.options.mixing"));
    QVERIFY(!visible("model.kernel_size"));
    QVERIFY(visible("model.n_heads"));
    QVERIFY(visible("model.options.dropout"));
    QVERIFY(dialog.isValid());
    // The form shows gpt's dropout; the saved run leaves it to the default.
    const QJsonObject options = dialog.fullRun().value("model").toObject().value("options").toObject();
    QCOMPARE(options.keys(), QStringList{"dropout"});
    QVERIFY(!dialog.run().value("model").toObject().contains("options"));
    choose(dialog, "model.arch", "mamba");
    QVERIFY(visible("model.options.d_state"));
    QVERIFY(!visible("model.ff_mult"));
    QVERIFY(!visible("model.options.dropout"));
    QVERIFY(dialog.isValid());
    QVERIFY(grabTo(dialog, "run-setup-mamba.png"));
  }

  void costPreviewOfTheDemoMixer() {
    const QJsonObject mixer = gui::projectRun(demoProject(), "mixer");
    QCOMPARE(mixer.value("model").toObject().value("d_model").toInt(), 256);
    const QString preview = gui::costPreview(mixer, demoProject());
    QVERIFY2(preview.contains("3,220,992"), qPrintable(preview));
    QVERIFY(preview.contains("FLOP / token"));
    QVERIFY(preview.contains("AdamW"));
    gui::RunSetupDialog dialog(demoProject(), mixer);
    QVERIFY(dialog.form()->previewText().contains("3,220,992"));
    QVERIFY(gui::validateRun(mixer, demoProject()).isEmpty());
    // The project's defaults show under the run's own settings; the resolved form has them all.
    const QJsonObject shown = gui::withProjectDefaults(mixer, demoProject());
    QCOMPARE(shown.value("model").toObject().value("context_length").toInt(), 128);
    QCOMPARE(shown.value("model").toObject().value("d_model").toInt(), 256);
    QCOMPARE(shown.value("train").toObject().value("max_steps").toInt(), 300);
    const QJsonObject resolved = gui::resolvedRun(mixer, demoProject());
    QCOMPARE(resolved.value("train").toObject().value("eval_every").toInt(), 50);
    QCOMPARE(resolved.value("model").toObject().value("vocab_size").toInt(), 2048);
  }

  void diffViewHighlightsExactlyTheDifferences() {
    const QJsonObject left{{"name", "a"},
                           {"model", QJsonObject{{"arch", "masked_mixer"}, {"d_model", 256}, {"n_layers", 4}}},
                           {"train", QJsonObject{{"learning_rate", 5e-4}, {"batch_size", 16}}}};
    const QJsonObject right{
        {"name", "a"},
        {"model", QJsonObject{{"arch", "masked_mixer"}, {"d_model", 512}, {"n_layers", 4}, {"kernel_size", 4}}},
        {"train", QJsonObject{{"learning_rate", 1e-3}, {"batch_size", 16}}}};
    widgets::ConfigDiffView view;
    view.setConfigs(left, right, "mixer", "mixer-wide");
    view.resize(640, 320);
    const QStringList expected{"model.d_model", "model.kernel_size", "train.learning_rate"};
    QCOMPARE(view.differingKeys(), expected);
    QCOMPARE(view.table()->rowCount(), 7);
    for (int row = 0; row < view.table()->rowCount(); ++row) {
      const QString key = view.table()->item(row, 0)->text();
      QCOMPARE(view.isRowHighlighted(key), expected.contains(key));
    }
    QVERIFY(grabTo(view, "config-diff.png"));
    view.setHideEqual(true);
    QCOMPARE(view.table()->rowCount(), 3);
    QCOMPARE(view.table()->item(1, 2)->text(), QString("4"));
    QCOMPARE(view.table()->item(1, 1)->text(), QString("(absent)"));
    QCOMPARE(view.table()->item(2, 1)->text(), QString("0.0005"));
    // How a run ran (train.threads 1 for a 2-rank run, 0 by default) is no difference.
    QJsonObject ranked = right;
    QJsonObject train = ranked["train"].toObject();
    train["threads"] = 1;
    ranked["train"] = train;
    view.setHideEqual(false);
    view.setExecutionKeys({"train.device", "train.threads"});
    view.setConfigs(left, ranked, "mixer", "mixer-2-ranks");
    QCOMPARE(view.differingKeys(), expected);
    QCOMPARE(view.table()->rowCount(), 8);
    QCOMPARE(view.table()->item(7, 0)->text(), QString("ran with: train.threads"));
    QVERIFY(!view.isRowHighlighted("ran with: train.threads"));
  }
};

QTEST_MAIN(TestRunSetup)
#include "test_run_setup.moc"
