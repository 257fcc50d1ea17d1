// LatestRequestLoader (see latest_request_loader.h).
#include "app/gui/common/latest_request_loader.h"

#include "app/gui/common/background_job.h"

namespace mixerlab::gui {

LatestRequestLoader::LatestRequestLoader(const QString& thread_name, QObject* parent)
    : QObject(parent), job_(new BackgroundJob(thread_name, this)) {}

LatestRequestLoader::~LatestRequestLoader() { job_->stop(); }

void LatestRequestLoader::request(Load load) {
  if (!job_->isRunning()) job_->startResident(new JobWorker);
  const int number = ++requested_;
  const int id = job_->id();
  BackgroundJob* job = job_;
  job_->postLatest([this, job, id, number, load = std::move(load)]() {
    std::function<void()> deliver = load();
    job->report(id, [this, number, deliver = std::move(deliver)]() {
      if (number != requested_) return;  // a newer request is on its way
      answered_ = number;
      if (deliver) deliver();
    });
  });
}

}  // namespace mixerlab::gui
