// Runs a round of generation jobs (one per panel column) at once, each GenerationWorker on its own
// QThread, and forwards their reports to the GUI thread through queued signals, so generation never
// blocks the event loop. Owns the round's cancel flag and the generator cache the workers share.
// stop() (and the destructor) cancels the round and joins every thread: closing the panel or
// quitting while a story streams is clean.
#pragma once
#include <QObject>
#include <QString>
#include <QVector>
#include <atomic>
#include <memory>
#include <vector>

#include "app/gui/generation/generation_worker.h"

class QThread;

namespace mixerlab::gui {

class GeneratorCache;

class GenerationRunner : public QObject {
  Q_OBJECT
 public:
  explicit GenerationRunner(QObject* parent = nullptr);
  ~GenerationRunner() override;

  // Starts every job on its own thread, sharing a fresh cancel flag and the cache, with an equal
  // share of the cores as LibTorch threads (the runner fills these in). False, starting nothing,
  // while a round runs.
  bool start(std::vector<GenerationJob> jobs);
  void cancel();  // the round's workers end with "cancelled" (a model being loaded loads first)
  void stop();    // cancel, then join every thread
  bool isRunning() const { return running_ > 0; }
  GeneratorCache& cache() { return *cache_; }

 Q_SIGNALS:
  void loaded(int column, const QString& architecture, const QString& decoder);
  void tokenReady(int column, const mixerlab::GeneratedToken& token, double tokens_per_s);
  void finished(int column, const mixerlab::GenerationResult& result);
  void failed(int column, const QString& error);
  void roundFinished();  // every job of the round has finished or failed

 private:
  void onWorkerDone();

  std::shared_ptr<GeneratorCache> cache_;
  std::shared_ptr<std::atomic<bool>> cancel_;
  QVector<QThread*> threads_;  // started and not yet cleaned up
  int running_ = 0;
};

}  // namespace mixerlab::gui
