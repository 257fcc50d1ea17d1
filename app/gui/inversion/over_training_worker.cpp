// OverTrainingWorker (see over_training_worker.h).
#include "app/gui/inversion/over_training_worker.h"

#include <exception>

#include "app/gui/inversion/inversion_worker.h"
#include "app/gui/common/progress_throttle.h"
#include "core/analysis/checkpoint_eval.h"
#include "core/analysis/eval_documents.h"
#include "core/train/checkpoint.h"
#include "core/util/error.h"

namespace mixerlab::gui {

OverTrainingWorker::OverTrainingWorker(OverTrainingJob job) : job_(std::move(job)) {}

void OverTrainingWorker::run() {
  try {
    std::vector<std::string> texts = job_.texts;
    if (texts.empty()) {
      const auto dir = resolveCheckpointDir(job_.run_dir);
      texts = evalSplitDocuments(checkpointProject(dir, readCheckpointConfig(dir)),
                                 static_cast<size_t>(std::max(1, job_.eval_documents)));
      if (texts.empty()) throw MixerLabError("the run's eval split has no documents");
    }
    ProgressThrottle throttle(InversionWorker::kProgressIntervalMs);
    const auto grid = invertOverTraining(
        job_.run_dir, texts, job_.settings, true,
        [&](size_t column, size_t columns, const InversionProgress& p) {
          if (throttle.due(p.iteration == p.iterations))
            Q_EMIT progress(static_cast<int>(column), static_cast<int>(columns), p);
        },
        job_.cancel.get());
    Q_EMIT finished(grid, texts);
  } catch (const std::exception& e) {
    Q_EMIT failed(QString::fromStdString(e.what()));
  }
  Q_EMIT done();
}

}  // namespace mixerlab::gui
