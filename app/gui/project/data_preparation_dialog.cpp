// The prepared-data dialog (see data_preparation_dialog.h).
#include "app/gui/project/data_preparation_dialog.h"

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include "app/gui/common/screen_fit.h"
#include "core/config/project_config.h"
#include "core/data/prepared_data_folders.h"
#include "core/util/error.h"

namespace mixerlab::gui {

namespace {

QString sizeText(double bytes) {
  if (bytes >= 1024.0 * 1024 * 1024) return QString::number(bytes / (1024.0 * 1024 * 1024), 'f', 2) + " GB";
  if (bytes >= 1024.0 * 1024) return QString::number(bytes / (1024.0 * 1024), 'f', 1) + " MB";
  return QString::number(bytes / 1024.0, 'f', 0) + " KB";
}

QString durationText(double seconds) {
  if (seconds < 90) return QString::number(static_cast<int>(seconds + 0.5)) + " s";
  if (seconds < 5400) return QString::number(static_cast<int>(seconds / 60 + 0.5)) + " min";
  return QString::number(seconds / 3600, 'f', 1) + " h";
}

}  // namespace

DataPreparationDialog::DataPreparationDialog(const QString& project_file, const QString& cli_program, QWidget* parent)
    : QDialog(parent), project_file_(project_file), cli_program_(cli_program) {
  setWindowTitle("Prepared data");
  auto* layout = new QVBoxLayout(this);
  auto* intro = new QLabel(
      "Runs train on token shards prepared from the corpus once (docs/data.md). Preparation streams the corpus "
      "in bounded memory and resumes where it stopped.",
      this);
  intro->setWordWrap(true);
  layout->addWidget(intro);
  table_ = new QTableWidget(0, 6, this);
  table_->setHorizontalHeaderLabels({"State", "Size", "Documents", "Tokens", "Shards", "Name / reason"});
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->verticalHeader()->hide();
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionMode(QAbstractItemView::NoSelection);
  layout->addWidget(table_, 2);
  progress_ = new QProgressBar(this);
  progress_->setRange(0, 100);
  progress_->setValue(0);
  layout->addWidget(progress_);
  rate_ = new QLabel("Not preparing.", this);
  layout->addWidget(rate_);
  log_ = new QPlainTextEdit(this);
  log_->setReadOnly(true);
  log_->setMaximumBlockCount(2000);
  layout->addWidget(log_, 1);

  auto* buttons = new QDialogButtonBox(this);
  prepare_button_ = buttons->addButton("&Prepare", QDialogButtonBox::ActionRole);
  stop_button_ = buttons->addButton("&Stop", QDialogButtonBox::ActionRole);
  prune_button_ = buttons->addButton("Remove &stale data", QDialogButtonBox::ActionRole);
  buttons->addButton(QDialogButtonBox::Close);
  stop_button_->setEnabled(false);
  layout->addWidget(buttons);
  connect(prepare_button_, &QPushButton::clicked, this, &DataPreparationDialog::prepare);
  connect(stop_button_, &QPushButton::clicked, this, &DataPreparationDialog::stop);
  connect(prune_button_, &QPushButton::clicked, this, &DataPreparationDialog::pruneStale);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(&process_, &QProcess::readyReadStandardOutput, this, &DataPreparationDialog::readOutput);
  connect(&process_, &QProcess::finished, this, &DataPreparationDialog::finished);
  connect(&process_, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
    if (error != QProcess::FailedToStart) return;  // the others end in finished()
    log_->appendPlainText("Cannot start " + cli_program_ + ": " + process_.errorString() +
                          " (set MIXERLAB_CLI to the mixerlab program)");
    rate_->setText("Preparation did not start.");
    prepare_button_->setEnabled(true);
    prune_button_->setEnabled(true);
    stop_button_->setEnabled(false);
  });
  process_.setProcessChannelMode(QProcess::MergedChannels);
  resizeWithinScreen(*this, QSize(900, 520));
  refresh();
}

DataPreparationDialog::~DataPreparationDialog() {
  if (process_.state() != QProcess::NotRunning) {  // a closed dialog stops its preparation (it resumes later)
    process_.terminate();
    if (!process_.waitForFinished(10000)) process_.kill();
  }
}

QString DataPreparationDialog::progressText(const QByteArray& json_line, int* percent) {
  const QJsonDocument document = QJsonDocument::fromJson(json_line);
  if (!document.isObject()) return {};
  const QJsonObject p = document.object();
  const double done = p.value("done_bytes").toDouble(), total = p.value("total_bytes").toDouble();
  const double elapsed = p.value("elapsed_s").toDouble(), tokens = p.value("tokens").toDouble();
  const double fraction = total > 0 ? std::min(1.0, done / total) : 0.0;
  if (percent) *percent = static_cast<int>(100 * fraction);
  QString text = QString("%1% of %2").arg(static_cast<int>(100 * fraction)).arg(sizeText(total));
  if (elapsed > 0) {
    text += QString(" · %1 MB/s · %2M tokens/s")
                .arg(done / (1024.0 * 1024) / elapsed, 0, 'f', 1)
                .arg(tokens / 1e6 / elapsed, 0, 'f', 2);
    if (done > 0 && done < total) text += " · about " + durationText((total - done) * elapsed / done) + " left";
  }
  return text;
}

void DataPreparationDialog::refresh() {
  table_->setRowCount(0);
  std::vector<PreparedDataEntry> entries;
  try {
    entries = listPreparedData(loadProject(project_file_.toStdString(), CorpusFiles::MayBeMissing).cacheDirectory());
  } catch (const MixerLabError& e) {
    log_->appendPlainText(QString::fromStdString(e.what()));
  }
  for (const PreparedDataEntry& e : entries) {
    const int row = table_->rowCount();
    table_->insertRow(row);
    const auto set = [&](int column, const QString& text) { table_->setItem(row, column, new QTableWidgetItem(text)); };
    set(0, QString::fromStdString(preparedDataStateName(e.state)));
    set(1, sizeText(static_cast<double>(e.bytes)));
    set(2, e.manifest ? QString::number(e.manifest->documents) : "-");
    set(3, e.manifest ? QString::number(e.manifest->tokens) : "-");
    set(4, e.manifest ? QString::number(e.manifest->shards.size()) : "-");
    QString name = QString::fromStdString(e.path.filename().string());
    if (e.manifest && !e.manifest->sources.empty()) {
      name += "  ←  " + QString::fromStdString(e.manifest->sources.front().path) +
              (e.manifest->sources.size() > 1 ? QString(" and %1 more").arg(e.manifest->sources.size() - 1) : "");
    }
    if (!e.reason.empty()) name += "  (" + QString::fromStdString(e.reason) + ")";
    set(5, name);
  }
  table_->resizeColumnsToContents();
  table_->horizontalHeader()->setStretchLastSection(true);
}

void DataPreparationDialog::prepare() {
  if (process_.state() != QProcess::NotRunning) return;
  log_->clear();
  progress_->setValue(0);
  rate_->setText("Starting...");
  pending_.clear();
  process_.start(cli_program_, {"data", "prepare", project_file_, "--progress-json"});
  prepare_button_->setEnabled(false);
  prune_button_->setEnabled(false);
  stop_button_->setEnabled(true);
}

void DataPreparationDialog::stop() {
  if (process_.state() == QProcess::NotRunning) return;
  rate_->setText("Stopping after the current document...");
  process_.terminate();  // SIGTERM: the CLI keeps the finished shards
}

void DataPreparationDialog::pruneStale() {
  try {
    const auto removed =
        pruneStalePreparedData(loadProject(project_file_.toStdString(), CorpusFiles::MayBeMissing).cacheDirectory());
    uint64_t bytes = 0;
    for (const auto& e : removed) bytes += e.bytes;
    log_->appendPlainText(
        QString("Removed %1 stale item(s), %2.").arg(removed.size()).arg(sizeText(static_cast<double>(bytes))));
  } catch (const MixerLabError& e) {
    QMessageBox::warning(this, "Remove stale data", QString::fromStdString(e.what()));
  }
  refresh();
}

void DataPreparationDialog::readOutput() {
  pending_ += process_.readAllStandardOutput();
  int newline;
  while ((newline = pending_.indexOf('\n')) >= 0) {
    const QByteArray line = pending_.left(newline).trimmed();
    pending_.remove(0, newline + 1);
    int percent = 0;
    const QString text = line.startsWith('{') ? progressText(line, &percent) : QString();
    if (!text.isEmpty()) {
      progress_->setValue(percent);
      rate_->setText(text);
    } else if (!line.isEmpty()) {
      log_->appendPlainText(QString::fromUtf8(line));
      if (!line.startsWith("preparing data:")) rate_->setText(QString::fromUtf8(line));
    }
  }
}

void DataPreparationDialog::finished(int exit_code, QProcess::ExitStatus status) {
  readOutput();
  if (!pending_.isEmpty()) log_->appendPlainText(QString::fromUtf8(pending_));
  pending_.clear();
  const bool ok = status == QProcess::NormalExit && exit_code == 0;
  if (ok && progress_->value() > 0) progress_->setValue(100);
  rate_->setText(ok ? "Done (a stopped preparation continues where it stopped on the next Prepare)."
                    : "Preparation failed: see the messages above.");
  prepare_button_->setEnabled(true);
  prune_button_->setEnabled(true);
  stop_button_->setEnabled(false);
  refresh();
}

}  // namespace mixerlab::gui
