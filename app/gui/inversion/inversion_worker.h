// The inversion inspector's job, run by an InversionWorker on its own QThread: invert the same
// input at the chosen layers of each model in turn (invertTexts), reporting progress at most every
// kProgressIntervalMs (and at the end of every layer), each model's results or error, through
// queued signals. Models run one after the other, not in parallel workers: loading a model for
// analysis sets LibTorch to every core, and an untrained model seeds torch's global generator, so
// parallel workers would fight for the cores and race on the seed. Setting the shared cancel flag
// stops the descent within one step; the models not started are reported as skipped.
#pragma once
#include <QMetaType>
#include <QObject>
#include <QString>
#include <atomic>
#include <memory>
#include <string>
#include <vector>

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
  std::shared_ptr<std::atomic<bool>> cancel;
};

class InversionWorker : public QObject {
  Q_OBJECT
 public:
  static constexpr int kProgressIntervalMs = 50;
  explicit InversionWorker(InversionJob job);

 public Q_SLOTS:
  void run();  // on the worker thread (queued from QThread::started)

 Q_SIGNALS:
  void modelStarted(int model);
  void progress(int model, const mixerlab::InversionProgress& progress);
  // One result per (layer, text); a cancelled layer's results carry cancelled = true.
  void finished(int model, const std::vector<mixerlab::InversionResult>& results);
  void failed(int model, const QString& error);
  void skipped(int model);  // cancelled before its turn
  void done();              // every model reported: the thread may end

 private:
  InversionJob job_;
};

}  // namespace mixerlab::gui

Q_DECLARE_METATYPE(mixerlab::InversionProgress)
Q_DECLARE_METATYPE(std::vector<mixerlab::InversionResult>)
