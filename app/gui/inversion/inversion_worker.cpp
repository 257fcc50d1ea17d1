// InversionWorker (see inversion_worker.h).
#include "app/gui/inversion/inversion_worker.h"

#include <exception>

namespace mixerlab::gui {

InversionWorker::InversionWorker(InversionJob job) : job_(std::move(job)) {}

void InversionWorker::run() {
  for (const InversionModelJob& m : job_.models) {
    if (cancelled()) {
      Q_EMIT skipped(m.model);
      continue;
    }
    Q_EMIT modelStarted(m.model);
    try {
      InversionSettings settings = job_.settings;
      settings.layers = m.layers;
      const int model = m.model;
      auto results = invertTexts(
          m.source, job_.texts, settings,
          [&](const InversionProgress& p) {
            if (progressDue(p.iteration == p.iterations)) Q_EMIT progress(model, p);
          },
          cancelFlag());
      Q_EMIT finished(m.model, results);
    } catch (const std::exception& e) {
      Q_EMIT failed(m.model, QString::fromStdString(e.what()));
    }
  }
}

}  // namespace mixerlab::gui
