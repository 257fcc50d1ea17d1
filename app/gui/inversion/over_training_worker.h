// The inspector's over-training job, run by an OverTrainingWorker on its BackgroundJob thread:
// invert the same inputs at every checkpoint of a run, untrained twin first (invertOverTraining),
// reporting throttled progress and then the layer x step grid. The inputs are given, or read here
// from the run's eval split (the first N documents), so no corpus is read on the GUI thread.
// Cancelling the job stops the descent within one step; the grid then holds the columns done so far.
#pragma once
#include <QObject>
#include <QString>
#include <filesystem>
#include <string>
#include <vector>

#include "app/gui/common/job_worker.h"
#include "core/analysis/inversion_over_training.h"

namespace mixerlab::gui {

struct OverTrainingJob {
  std::filesystem::path run_dir;
  std::vector<std::string> texts;  // empty: the first `eval_documents` of the run's eval split
  int eval_documents = 0;
  InversionSettings settings;
};

class OverTrainingWorker : public JobWorker {
  Q_OBJECT
 public:
  explicit OverTrainingWorker(OverTrainingJob job);

  void run() override;

 Q_SIGNALS:
  void progress(int column, int columns, const mixerlab::InversionProgress& progress);
  void finished(const mixerlab::InversionOverTraining& grid, const std::vector<std::string>& texts);
  void failed(const QString& error);

 private:
  OverTrainingJob job_;
};

}  // namespace mixerlab::gui
