// One column's generation job, run by a GenerationWorker on its own BackgroundJob thread: lease the
// checkpoint's generator from the shared cache (loading the model there, not on the GUI thread),
// generate with the job's share of the cores, and report each token, the results or the error.
// One sample is Generator::generate; several are one decoder batch (Generator::generateSamples,
// sample i with seed + i). Cancelling the job ends every story with finish reason "cancelled".
#pragma once
#include <QObject>
#include <QString>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "app/gui/common/job_worker.h"
#include "core/analysis/generation.h"

namespace mixerlab::gui {

class GeneratorCache;

struct GenerationJob {
  int column = 0;
  std::filesystem::path checkpoint_dir;
  std::string prompt;
  GenerationSettings settings;
  int samples = 1;
  std::shared_ptr<GeneratorCache> cache;  // shared by every column (and round) of the panel
};

class GenerationWorker : public JobWorker {
  Q_OBJECT
 public:
  explicit GenerationWorker(GenerationJob job);

  void run() override;

 Q_SIGNALS:
  // The model is ready: its architecture and the decoder the job will use.
  void loaded(int column, const QString& architecture, const QString& decoder);
  // A token of `sample` was chosen; tokens_per_s counts the column's tokens so far (every sample's)
  // over the time since generation began.
  void tokenReady(int column, int sample, const mixerlab::GeneratedToken& token, double tokens_per_s);
  void finished(int column, const std::vector<mixerlab::GenerationResult>& samples);
  void failed(int column, const QString& error);

 private:
  GenerationJob job_;
};

}  // namespace mixerlab::gui
