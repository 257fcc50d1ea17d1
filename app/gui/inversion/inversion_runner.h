// Runs the inversion inspector's jobs off the GUI thread: one job at a time (the models of an
// inspection, or a run's checkpoints over training), its worker on an owned QThread, its reports
// forwarded through queued signals. Owns the job's cancel flag. stop() (and the destructor)
// cancels and joins the thread, so closing the panel or the window mid-run is clean, and drops
// reports the stopped worker had queued.
#pragma once
#include <QObject>
#include <QString>
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "app/gui/inversion/inversion_worker.h"
#include "app/gui/inversion/over_training_worker.h"

class QThread;

namespace mixerlab::gui {

class InversionRunner : public QObject {
  Q_OBJECT
 public:
  explicit InversionRunner(QObject* parent = nullptr);
  ~InversionRunner() override;

  // Start the job on a new thread with a fresh cancel flag (the runner fills it in). False,
  // starting nothing, while a job runs.
  bool start(InversionJob job);
  bool startOverTraining(OverTrainingJob job);
  void cancel();  // the descent stops within one step
  void stop();    // cancel, then join the thread
  bool isRunning() const { return thread_ != nullptr; }

 Q_SIGNALS:
  void modelStarted(int model);
  void progress(int model, const mixerlab::InversionProgress& progress);
  void finished(int model, const std::vector<mixerlab::InversionResult>& results);
  void failed(int model, const QString& error);
  void skipped(int model);
  void overTrainingProgress(int column, int columns, const mixerlab::InversionProgress& progress);
  void overTrainingFinished(const mixerlab::InversionOverTraining& grid, const std::vector<std::string>& texts);
  void overTrainingFailed(const QString& error);
  void jobFinished();  // the job's worker is done and its thread joined

 private:
  template <typename Worker>
  void launch(Worker* worker, const char* name);
  void onWorkerDone();

  std::shared_ptr<std::atomic<bool>> cancel_;
  QThread* thread_ = nullptr;
};

}  // namespace mixerlab::gui
