// OverTrainingWorker (see over_training_worker.h).
#include "app/gui/inversion/over_training_worker.h"

#include <algorithm>
#include <exception>

#include "core/analysis/eval_documents.h"
#include "core/util/error.h"

namespace mixerlab::gui {

OverTrainingWorker::OverTrainingWorker(OverTrainingJob job) : job_(std::move(job)) {}

void OverTrainingWorker::run() {
  try {
    std::vector<std::string> texts = job_.texts;
    if (texts.empty()) {
      texts = checkpointEvalDocuments(job_.run_dir, static_cast<size_t>(std::max(1, job_.eval_documents)));
      if (texts.empty()) throw MixerLabError("the run's eval split has no documents");
    }
    const auto grid = invertOverTraining(
        job_.run_dir, texts, job_.settings, true,
        [&](size_t column, size_t columns, const InversionProgress& p) {
          if (progressDue(p.iteration == p.iterations))
            Q_EMIT progress(static_cast<int>(column), static_cast<int>(columns), p);
        },
        cancelFlag());
    Q_EMIT finished(grid, texts);
  } catch (const std::exception& e) {
    Q_EMIT failed(QString::fromStdString(e.what()));
  }
}

}  // namespace mixerlab::gui
