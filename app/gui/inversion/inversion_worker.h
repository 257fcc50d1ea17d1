// The inversion inspector's job, run by an InversionWorker on its BackgroundJob thread: invert the
// same input at the chosen layers of each model in turn (invertTexts), reporting throttled progress
// (and the end of every layer), each model's results or error. Models run one after the other, not
// in parallel workers: loading a model for analysis sets LibTorch to every core, and an untrained
// model seeds torch's global generator, so parallel workers would fight for the cores and race on
// the seed. Cancelling the job stops the descent within one step; the models not started are
// reported as skipped.
#pragma once
#include <QObject>
#include <QString>
#include <string>
#include <vector>

#include "app/gui/common/job_worker.h"
#include "core/analysis/inversion.h"

namespace mixerlab::gui {

struct InversionModelJob {
  int model = 0;  // the panel's index of the model
  ModelSource source;
  std::vector<int64_t> layers;  // for this model (depths differ)
};

struct InversionJob {
  std::vector<InversionModelJob> models;  // inverted in this order
  std::vector<std::string> texts;
  InversionSettings settings;  // its layers are replaced by each model's
};

class InversionWorker : public JobWorker {
  Q_OBJECT
 public:
  explicit InversionWorker(InversionJob job);

  void run() override;

 Q_SIGNALS:
  void modelStarted(int model);
  void progress(int model, const mixerlab::InversionProgress& progress);
  // One result per (layer, text); a cancelled layer's results carry cancelled = true.
  void finished(int model, const std::vector<mixerlab::InversionResult>& results);
  void failed(int model, const QString& error);
  void skipped(int model);  // cancelled before its turn

 private:
  InversionJob job_;
};

}  // namespace mixerlab::gui
