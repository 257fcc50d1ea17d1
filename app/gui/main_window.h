// The MixerLab main window: a project's runs (status, step, tokens, best eval loss, throughput),
// a live loss plot of all runs, the selected run's log, and actions to train, resume and stop runs.
// Runs are CLI child processes; a RunMonitor on an owned QThread feeds the views.
#pragma once
#include <QMainWindow>
#include <QMap>
#include <memory>

#include "app/gui/run_snapshot.h"

class QTableWidget;
class QPlainTextEdit;
class QThread;
class QLabel;

namespace mixerlab::widgets {
class LossPlotWidget;
}

namespace mixerlab::gui {

class RunMonitor;
class LaunchTarget;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  // Loads a project file; returns an error message (also shown in the status bar), empty on success.
  QString openProject(const QString& project_file);
  QString runsDirectory() const { return runs_dir_; }
  widgets::LossPlotWidget* lossPlot() const { return plot_; }
  QTableWidget* runTable() const { return table_; }
  QString runState(const QString& run) const;
  QString launch(const QString& run, bool resume);  // error message, empty on success
  QString stop(const QString& run);

 protected:
  void closeEvent(QCloseEvent* event) override;

 private Q_SLOTS:
  void onRunUpdated(const mixerlab::gui::RunSnapshot& snapshot);
  void onOpenProject();
  void onTrainSelected();
  void onResumeSelected();
  void onStopSelected();
  void showSelectedLog();

 private:
  void buildUi();
  void stopMonitor();
  int rowFor(const QString& run, const QString& arch = {});
  QString selectedRun() const;

  QString project_file_, runs_dir_;
  QTableWidget* table_ = nullptr;
  widgets::LossPlotWidget* plot_ = nullptr;
  QPlainTextEdit* log_view_ = nullptr;
  QLabel* project_label_ = nullptr;
  QThread* monitor_thread_ = nullptr;
  RunMonitor* monitor_ = nullptr;
  std::unique_ptr<LaunchTarget> target_;
  QMap<QString, widgets::LossSeries> series_;
  QMap<QString, QString> states_;
};

}  // namespace mixerlab::gui
