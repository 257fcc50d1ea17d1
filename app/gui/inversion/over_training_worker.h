// The inspector's over-training job, run by an OverTrainingWorker on its own QThread: invert the
// same inputs at every checkpoint of a run, untrained twin first (invertOverTraining), reporting
// throttled progress and then the layer x step grid. The inputs are given, or read here from the
// run's eval split (the first N documents), so no corpus is read on the GUI thread. The shared
// cancel flag stops the descent within one step; the grid then holds the columns done so far.
#pragma once
#include <QMetaType>
#include <QObject>
#include <QString>
#include <atomic>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "core/analysis/inversion_over_training.h"

namespace mixerlab::gui {

struct OverTrainingJob {
  std::filesystem::path run_dir;
  std::vector<std::string> texts;  // empty: the first `eval_documents` of the run's eval split
  int eval_documents = 0;
  InversionSettings settings;
  std::shared_ptr<std::atomic<bool>> cancel;
};

class OverTrainingWorker : public QObject {
  Q_OBJECT
 public:
  explicit OverTrainingWorker(OverTrainingJob job);

 public Q_SLOTS:
  void run();

 Q_SIGNALS:
  void progress(int column, int columns, const mixerlab::InversionProgress& progress);
  void finished(const mixerlab::InversionOverTraining& grid, const std::vector<std::string>& texts);
  void failed(const QString& error);
  void done();

 private:
  OverTrainingJob job_;
};

}  // namespace mixerlab::gui

Q_DECLARE_METATYPE(mixerlab::InversionOverTraining)
