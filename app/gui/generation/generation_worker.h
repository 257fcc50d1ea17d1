// One column's generation job, run by a GenerationWorker on its own QThread: lease the checkpoint's
// generator from the shared cache (loading the model there, not on the GUI thread), generate, and
// report each token, the result or the error through queued signals. Setting the shared cancel
// flag ends the story with finish reason "cancelled".
#pragma once
#include <QMetaType>
#include <QObject>
#include <QString>
#include <atomic>
#include <filesystem>
#include <memory>
#include <string>

#include "core/analysis/generation.h"

namespace mixerlab::gui {

class GeneratorCache;

struct GenerationJob {
  int column = 0;
  std::filesystem::path checkpoint_dir;
  std::string prompt;
  GenerationSettings settings;
  int cpu_threads = 0;                        // LibTorch intra-op threads for this worker's thread (0: leave as is)
  std::shared_ptr<std::atomic<bool>> cancel;  // shared by every column of a round
  std::shared_ptr<GeneratorCache> cache;
};

class GenerationWorker : public QObject {
  Q_OBJECT
 public:
  explicit GenerationWorker(GenerationJob job);

 public Q_SLOTS:
  void run();  // on the worker thread (queued from QThread::started)

 Q_SIGNALS:
  // The model is ready: its architecture and the decoder the job will use.
  void loaded(int column, const QString& architecture, const QString& decoder);
  // A token was chosen; tokens_per_s counts the tokens so far over the time since generate() began.
  void tokenReady(int column, const mixerlab::GeneratedToken& token, double tokens_per_s);
  void finished(int column, const mixerlab::GenerationResult& result);
  void failed(int column, const QString& error);
  void done();  // after finished or failed: the thread may end

 private:
  GenerationJob job_;
};

}  // namespace mixerlab::gui

Q_DECLARE_METATYPE(mixerlab::GeneratedToken)
Q_DECLARE_METATYPE(mixerlab::GenerationResult)
