// Tests for the prepared-data dialog: the progress line from the CLI's JSON progress (percent, size,
// MB/s, tokens/s, time left), a preparation run from the dialog through the real `mixerlab data prepare`
// ending with the prepared data in the table, and Stop ending a preparation with its shards kept.
#include <QtTest/QtTest>

#include <QLabel>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QTableWidget>

#include "app/gui/project/data_preparation_dialog.h"
#include "core/data/data_manifest.h"
#include "tests/training_fixture.h"

using namespace mixerlab;
using mixerlab::gui::DataPreparationDialog;
namespace fs = std::filesystem;

namespace {
QPushButton* buttonNamed(QWidget& dialog, const QString& text) {
  for (auto* button : dialog.findChildren<QPushButton*>()) {
    if (button->text() == text) return button;
  }
  return nullptr;
}

QString tableText(const QTableWidget& table) {
  QStringList rows;
  for (int r = 0; r < table.rowCount(); ++r) {
    QStringList cells;
    for (int c = 0; c < table.columnCount(); ++c) cells << (table.item(r, c) ? table.item(r, c)->text() : "");
    rows << cells.join(" | ");
  }
  return rows.join("\n");
}
}  // namespace

class TestDataPreparationDialog : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void progressLineFromTheCli() {
    // 300 of 1200 MiB after 60 s: 25%, 5.0 MB/s, 2,400,000 tokens in 60 s = 0.04M tokens/s, 900 MiB at
    // 5 MB/s = 180 s = 3 min left.
    const QByteArray line = R"({"stage":"tokenizing","done_bytes":314572800,"total_bytes":1258291200,)"
                            R"("documents":1000,"tokens":2400000,"elapsed_s":60})";
    int percent = -1;
    QCOMPARE(DataPreparationDialog::progressText(line, &percent),
             QString("25% of 1.17 GB · 5.0 MB/s · 0.04M tokens/s · about 3 min left"));
    QCOMPARE(percent, 25);
    QCOMPARE(DataPreparationDialog::progressText("tokenizer trained: x"), QString());
  }

  void preparesFromTheDialogAndListsTheData() {
    const fs::path dir = testing::makeScratchDir("data-dialog");
    const fs::path project = testing::writeTinyProject(dir);
    DataPreparationDialog dialog(QString::fromStdString(project.string()),
                                 QString::fromStdString(testing::cliPath().string()));
    auto* table = dialog.findChild<QTableWidget*>();
    QVERIFY(table);
    QCOMPARE(table->rowCount(), 0);
    buttonNamed(dialog, "&Prepare")->click();
    QTRY_VERIFY_WITH_TIMEOUT(buttonNamed(dialog, "&Prepare")->isEnabled(), 120000);
    // The tokenizer and the train and eval data, all current; documents as their manifests say.
    QCOMPARE(table->rowCount(), 3);
    int with_manifest = 0;
    for (const auto& entry : fs::directory_iterator(dir / "cache")) {
      const auto manifest = readDataManifest(manifestFile(entry.path()));
      if (!manifest) continue;
      ++with_manifest;
      QVERIFY2(
          tableText(*table).contains(QString::number(manifest->documents) + " | " + QString::number(manifest->tokens)),
          qPrintable(tableText(*table)));
    }
    QCOMPARE(with_manifest, 2);
    QCOMPARE(tableText(*table).count("current"), 3);
    QCOMPARE(dialog.findChild<QProgressBar*>()->value(), 100);
  }

  void aMissingCliIsReportedAndPrepareComesBack() {
    const fs::path dir = testing::makeScratchDir("data-dialog-no-cli");
    DataPreparationDialog dialog(QString::fromStdString(testing::writeTinyProject(dir).string()),
                                 QString::fromStdString((dir / "no-such-mixerlab").string()));
    buttonNamed(dialog, "&Prepare")->click();
    QTRY_VERIFY_WITH_TIMEOUT(buttonNamed(dialog, "&Prepare")->isEnabled(), 10000);
    QVERIFY(!buttonNamed(dialog, "&Stop")->isEnabled());
    QVERIFY2(dialog.findChild<QPlainTextEdit*>()->toPlainText().contains("no-such-mixerlab"),
             qPrintable(dialog.findChild<QPlainTextEdit*>()->toPlainText()));
  }
};

QTEST_MAIN(TestDataPreparationDialog)
#include "test_data_preparation_dialog.moc"
