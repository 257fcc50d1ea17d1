// BackgroundJob (see background_job.h).
#include "app/gui/common/background_job.h"

#include <QThread>
#include <algorithm>

namespace mixerlab::gui {

BackgroundJob::BackgroundJob(QString thread_name, QObject* parent)
    : QObject(parent), thread_name_(std::move(thread_name)) {}

// Joined here, in the body, while this object can still take the worker's last reports (they are
// dropped with it).
BackgroundJob::~BackgroundJob() { stop(); }

int BackgroundJob::coreShare(int jobs) { return std::max(1, QThread::idealThreadCount() / std::max(1, jobs)); }

int BackgroundJob::start(JobWorker* worker, int jobs_sharing_cores) {
  return launch(worker, jobs_sharing_cores, false);
}

int BackgroundJob::startResident(JobWorker* worker, int jobs_sharing_cores) {
  return launch(worker, jobs_sharing_cores, true);
}

int BackgroundJob::launch(JobWorker* worker, int jobs_sharing_cores, bool resident) {
  stop();
  id_ = worker->jobId();
  cancel_ = worker->cancel_;
  worker->cpu_threads_ = jobs_sharing_cores > 0 ? coreShare(jobs_sharing_cores) : 0;
  worker_ = worker;
  thread_ = new QThread;
  thread_->setObjectName(thread_name_);
  worker->moveToThread(thread_);
  connect(thread_, &QThread::finished, worker, &QObject::deleteLater);
  const int id = id_;
  // `started` is emitted on the new thread, where the worker now lives: run() is called there.
  connect(thread_, &QThread::started, worker, [this, worker, id, resident]() {
    worker->run();
    if (resident) return;
    QThread::currentThread()->quit();  // before its event loop starts: it returns at once
    report(id, [this, id]() { onRunReturned(id); });
  });
  thread_->start();
  return id;
}

void BackgroundJob::post(std::function<void()> call) {
  if (worker_ != nullptr) QMetaObject::invokeMethod(worker_, std::move(call), Qt::QueuedConnection);
}

void BackgroundJob::postLatest(std::function<void()> call) {
  const int number = ++latest_posts_;
  latest_post_->store(number);
  post([latest = latest_post_, number, call = std::move(call)]() {
    if (latest->load() == number) call();
  });
}

void BackgroundJob::report(int id, std::function<void()> call) {
  // Safe from the job's thread: this object outlives the thread (the destructor joins it).
  QMetaObject::invokeMethod(
      this,
      [this, id, call = std::move(call)]() {
        if (isCurrent(id)) call();
      },
      Qt::QueuedConnection);
}

void BackgroundJob::onRunReturned(int id) {
  thread_->wait();  // its event loop returns at once: a short join
  delete thread_;
  thread_ = nullptr;
  worker_ = nullptr;  // deleted as its thread finished
  Q_EMIT finished(id);
}

void BackgroundJob::cancel() {
  if (cancel_) cancel_->store(true);
}

void BackgroundJob::stop() {
  id_ = 0;  // from now on the job's reports are dropped
  if (thread_ == nullptr) return;
  cancel();
  thread_->quit();
  thread_->wait();
  delete thread_;
  thread_ = nullptr;
  worker_ = nullptr;
}

}  // namespace mixerlab::gui
