// The Reproduce-the-paper dialog (see reproduce_dialog.h).
#include "app/gui/launch/reproduce_dialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDesktopServices>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QUrl>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "app/gui/common/screen_fit.h"

namespace mixerlab::gui {

double ReproduceLine::overall() const {
  if (step_count <= 0) return 0;
  return (std::max(0, step - 1) + std::clamp(fraction_in_step, 0.0, 1.0)) / step_count;
}

std::optional<ReproduceLine> parseReproduceLine(const QString& line) {
  static const QRegularExpression step_line(R"(^\[(\d+)/(\d+)\] (.+)$)");
  static const QRegularExpression percent_line(R"(^\s*(\d+)% of step (\d+)/(\d+)\s*$)");
  if (const auto m = step_line.match(line); m.hasMatch()) {
    return ReproduceLine{m.captured(1).toInt(), m.captured(2).toInt(), 0.0, m.captured(3)};
  }
  if (const auto m = percent_line.match(line); m.hasMatch()) {
    return ReproduceLine{m.captured(2).toInt(), m.captured(3).toInt(), m.captured(1).toInt() / 100.0, {}};
  }
  return std::nullopt;
}

QString progressNote(double fraction_in_step, double overall, double elapsed_s) {
  QString note = QString(" (%1% of this step").arg(static_cast<int>(std::lround(100 * fraction_in_step)));
  // The rate of this session so far; a resumed suite's earlier steps are not in the elapsed time.
  if (overall >= 0.01 && overall < 1 && elapsed_s > 0) {
    const double left_s = elapsed_s * (1 - overall) / overall;
    note += left_s >= 3600 ? QString("; about %1 h left").arg(left_s / 3600, 0, 'f', 1)
                           : QString("; about %1 min left").arg(std::max(1L, std::lround(left_s / 60)));
  }
  return note + ")";
}

namespace {
const char* scaleNote(const QString& scale) {
  if (scale == "tiny") {
    return "A pipeline check on the bundled TinyStories sample: every compared family at two widths and two seeds, "
           "inversion, retrieval and InfoNCE. About 40 minutes on 2 CPU cores; its budget is far below the paper's, "
           "so loss orderings are shown but not judged.";
  }
  if (scale == "small")
    return "Wider and deeper models at 25x the compute: hours on a CPU. Loss orderings are still shown, not judged.";
  if (scale == "gpu")
    return "The research's TinyStories setup (T=512) at budgets that reach the paper's smallest runs: about an hour "
           "on one H100-class GPU (put TinyStories in projects/paper/data first).";
  return "The research's presets for 12 hours each on the full TinyStories (put it in projects/paper/data first): "
         "days on one GPU. `mixerlab reproduce --plan` estimates every scale's time on this machine.";
}
}  // namespace

ReproduceDialog::ReproduceDialog(QString cli_executable, QString default_folder, QWidget* parent)
    : QDialog(parent), cli_(std::move(cli_executable)) {
  setWindowTitle("Reproduce the paper");
  auto* form = new QFormLayout;
  scale_ = new QComboBox;
  scale_->addItems({"tiny", "small", "gpu", "paper"});
  scale_note_ = new QLabel(scaleNote("tiny"));
  scale_note_->setWordWrap(true);
  folder_ = new QLineEdit(default_folder);
  auto* browse = new QPushButton("Browse...");
  auto* folder_row = new QHBoxLayout;
  folder_row->addWidget(folder_, 1);
  folder_row->addWidget(browse);
  resume_ = new QCheckBox("Continue the reproduction this folder holds");
  form->addRow("Scale:", scale_);
  form->addRow("", scale_note_);
  form->addRow("Folder:", folder_row);
  form->addRow("", resume_);
  progress_ = new QProgressBar;
  progress_->setRange(0, 1000);
  progress_->setValue(0);
  step_ = new QLabel("Not started.");
  step_->setWordWrap(true);
  log_ = new QPlainTextEdit;
  log_->setReadOnly(true);
  log_->setMaximumBlockCount(2000);
  start_ = new QPushButton("Start");
  stop_ = new QPushButton("Stop");
  open_report_ = new QPushButton("Open report");
  open_project_ = new QPushButton("Open runs as project");
  auto* buttons = new QHBoxLayout;
  for (auto* b : {start_, stop_, open_report_, open_project_}) buttons->addWidget(b);
  buttons->addStretch(1);
  auto* close = new QPushButton("Close");
  buttons->addWidget(close);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addWidget(progress_);
  layout->addWidget(step_);
  layout->addWidget(log_, 1);
  layout->addLayout(buttons);
  resizeWithinScreen(*this, QSize(720, 480));

  connect(scale_, &QComboBox::currentTextChanged, this, [this](const QString& s) {
    scale_note_->setText(scaleNote(s));
    if (!running() && QFileInfo(folder_->text()).fileName().startsWith("reproduce-")) {
      folder_->setText(QFileInfo(folder_->text()).dir().filePath("reproduce-" + s));
    }
  });
  connect(folder_, &QLineEdit::textChanged, this, [this] { refreshButtons(); });
  connect(browse, &QPushButton::clicked, this, [this] {
    const QString dir = QFileDialog::getExistingDirectory(this, "Reproduction folder", folder_->text());
    if (!dir.isEmpty()) folder_->setText(dir);
  });
  connect(start_, &QPushButton::clicked, this, &ReproduceDialog::start);
  connect(stop_, &QPushButton::clicked, this, &ReproduceDialog::stop);
  connect(open_report_, &QPushButton::clicked, this, [this] {
    if (!QDesktopServices::openUrl(QUrl::fromLocalFile(reportFile()))) {
      step_->setText("No browser could be started here: open " + reportFile() + " in one.");
    }
  });
  connect(open_project_, &QPushButton::clicked, this,
          [this] { Q_EMIT openProjectRequested(QDir(outFolder()).filePath("project.json")); });
  connect(close, &QPushButton::clicked, this, &QDialog::close);
  refreshButtons();
}

ReproduceDialog::~ReproduceDialog() {
  if (running()) {
    process_->terminate();  // the CLI checkpoints and stops; a later start resumes
    process_->waitForFinished(10000);
  }
}

QString ReproduceDialog::outFolder() const { return QDir::cleanPath(folder_->text().trimmed()); }
bool ReproduceDialog::running() const { return process_ && process_->state() != QProcess::NotRunning; }
QString ReproduceDialog::reportFile() const { return QDir(outFolder()).filePath("report.html"); }

void ReproduceDialog::refreshButtons() {
  const bool busy = running();
  const bool holds_plan = QFileInfo::exists(QDir(outFolder()).filePath("plan.json"));
  if (!busy) resume_->setChecked(holds_plan);
  resume_->setEnabled(!busy && holds_plan);
  start_->setEnabled(!busy && !cli_.isEmpty());
  start_->setText(holds_plan ? "Resume" : "Start");
  stop_->setEnabled(busy);
  scale_->setEnabled(!busy);
  folder_->setEnabled(!busy);
  open_report_->setEnabled(QFileInfo::exists(reportFile()));
  open_project_->setEnabled(!busy && QFileInfo::exists(QDir(outFolder()).filePath("project.json")));
}

void ReproduceDialog::start() {
  if (running()) return;
  if (cli_.isEmpty()) {
    step_->setText("The mixerlab command-line program was not found next to the workbench.");
    return;
  }
  QStringList args{"reproduce", "--scale", scale_->currentText(), "--out", outFolder()};
  if (resume_->isChecked()) args << "--resume";
  process_ = new QProcess(this);
  process_->setProcessChannelMode(QProcess::MergedChannels);
  connect(process_, &QProcess::readyRead, this, &ReproduceDialog::onOutput);
  connect(process_, &QProcess::finished, this, &ReproduceDialog::onProcessFinished);
  log_->appendPlainText("$ mixerlab " + args.join(' '));
  step_->setText("Starting...");
  step_title_.clear();
  started_.start();
  process_->start(cli_, args);
  refreshButtons();
}

void ReproduceDialog::stop() {
  if (!running()) return;
  step_->setText("Stopping after the current checkpoint...");
  process_->terminate();
}

void ReproduceDialog::onOutput() {
  pending_ += QString::fromUtf8(process_->readAll());
  pending_.replace('\r', '\n');
  const qsizetype end = pending_.lastIndexOf('\n');
  if (end < 0) return;
  const QStringList lines = pending_.left(end).split('\n', Qt::SkipEmptyParts);
  pending_ = pending_.mid(end + 1);
  for (const QString& line : lines) {
    if (const auto p = parseReproduceLine(line)) {
      progress_->setValue(static_cast<int>(p->overall() * 1000));
      if (!p->title.isEmpty()) {
        step_title_ = QString("Step %1 of %2: %3").arg(p->step).arg(p->step_count).arg(p->title);
        log_->appendPlainText(line);
      }
      step_->setText(step_title_ + progressNote(p->fraction_in_step, p->overall(), started_.elapsed() / 1000.0));
      continue;
    }
    log_->appendPlainText(line);
  }
}

void ReproduceDialog::onProcessFinished(int exit_code, QProcess::ExitStatus status) {
  onOutput();
  const bool ok = status == QProcess::NormalExit && exit_code == 0;
  const bool report = ok && QFileInfo::exists(reportFile());
  if (report) progress_->setValue(1000);
  const bool holds_plan = QFileInfo::exists(QDir(outFolder()).filePath("plan.json"));
  const QString again = holds_plan ? "press Resume to continue where it stopped" : "press Start";
  step_->setText(report ? "Done: the report is " + reportFile()
                        : (ok ? "Stopped: " + again + "."
                              : "Failed (the log below says why): fix the cause, then " + again + "."));
  process_->deleteLater();
  process_ = nullptr;
  refreshButtons();
  Q_EMIT finished(report);
}

}  // namespace mixerlab::gui
