// The project's prepared data in the workbench: a table of what its cache folder holds (current,
// unfinished, stale or old data and tokenizers, with documents, tokens and shards), and preparation
// itself run as a `mixerlab data prepare` child process with a progress bar (MB/s, tokens/s, ETA),
// a Stop that the CLI honours after the current document, and pruning of stale data.
#pragma once
#include <QDialog>
#include <QElapsedTimer>
#include <QProcess>

class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QTableWidget;

namespace mixerlab::gui {

class DataPreparationDialog : public QDialog {
  Q_OBJECT

 public:
  DataPreparationDialog(const QString& project_file, const QString& cli_program, QWidget* parent = nullptr);
  ~DataPreparationDialog() override;

  // The text the progress line shows for a progress report of the CLI (a JSON object), e.g.
  // "45% of 1.80 GB · 12.3 MB/s · 3.10M tokens/s · about 2 min left"; empty when it is not one.
  static QString progressText(const QByteArray& json_line, int* percent = nullptr);

 public Q_SLOTS:
  void refresh();  // re-reads the cache folder into the table
  void prepare();
  void stop();
  void pruneStale();

 private:
  void readOutput();
  void finished(int exit_code, QProcess::ExitStatus status);

  QString project_file_, cli_program_;
  QTableWidget* table_;
  QProgressBar* progress_;
  QLabel* rate_;
  QPlainTextEdit* log_;
  QPushButton *prepare_button_, *stop_button_, *prune_button_;
  QProcess process_;
  QByteArray pending_;
};

}  // namespace mixerlab::gui
