// Run > Reproduce the paper: choose a scale and a folder, run `mixerlab reproduce` as a child process
// (the workbench never trains in-process), follow its progress, stop it (it checkpoints and can be
// resumed) and open the report or the reproduction's runs as a project when it is done.
#pragma once
#include <QDialog>
#include <QElapsedTimer>
#include <QProcess>
#include <optional>

class QComboBox;
class QLineEdit;
class QLabel;
class QProgressBar;
class QPlainTextEdit;
class QPushButton;
class QCheckBox;

namespace mixerlab::gui {

// One progress line of `mixerlab reproduce` ("[3/23] train llama-d128-seed1" or "  40% of step 3/23"),
// as overall progress in [0, 1]; nullopt for any other line.
struct ReproduceLine {
  int step = 0, step_count = 0;
  double fraction_in_step = 0;
  QString title;  // set on a step's first line
  double overall() const;
};
std::optional<ReproduceLine> parseReproduceLine(const QString& line);
// " (40% of this step; about 12 min left)": the step's share done and, once 1% of the suite is,
// the time left at this session's rate so far.
QString progressNote(double fraction_in_step, double overall, double elapsed_s);

class ReproduceDialog : public QDialog {
  Q_OBJECT
 public:
  ReproduceDialog(QString cli_executable, QString default_folder, QWidget* parent = nullptr);
  ~ReproduceDialog() override;
  QString outFolder() const;
  bool running() const;

 public Q_SLOTS:
  void start();
  void stop();

 Q_SIGNALS:
  void openProjectRequested(const QString& project_file);
  void finished(bool report_written);

 private:
  void onOutput();
  void onProcessFinished(int exit_code, QProcess::ExitStatus status);
  void refreshButtons();
  QString reportFile() const;
  QString step_title_;     // "Step 3 of 39: train ..." of the step running
  QElapsedTimer started_;  // since this session's start, for the time left

  QString cli_;
  QComboBox* scale_ = nullptr;
  QLabel* scale_note_ = nullptr;
  QLineEdit* folder_ = nullptr;
  QCheckBox* resume_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QLabel* step_ = nullptr;
  QPlainTextEdit* log_ = nullptr;
  QPushButton *start_ = nullptr, *stop_ = nullptr, *open_report_ = nullptr, *open_project_ = nullptr;
  QProcess* process_ = nullptr;
  QString pending_;  // a partial output line
};

}  // namespace mixerlab::gui
