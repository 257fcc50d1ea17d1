// InversionRunner (see inversion_runner.h).
#include "app/gui/inversion/inversion_runner.h"

#include <QCoreApplication>
#include <QThread>

namespace mixerlab::gui {

InversionRunner::InversionRunner(QObject* parent)
    : QObject(parent), cancel_(std::make_shared<std::atomic<bool>>(false)) {
  qRegisterMetaType<mixerlab::InversionProgress>("mixerlab::InversionProgress");
  qRegisterMetaType<std::vector<mixerlab::InversionResult>>("std::vector<mixerlab::InversionResult>");
  qRegisterMetaType<mixerlab::InversionOverTraining>("mixerlab::InversionOverTraining");
  qRegisterMetaType<std::vector<std::string>>("std::vector<std::string>");
}

InversionRunner::~InversionRunner() { stop(); }

template <typename Worker>
void InversionRunner::launch(Worker* worker, const char* name) {
  thread_ = new QThread;
  thread_->setObjectName(name);
  worker->moveToThread(thread_);
  connect(thread_, &QThread::started, worker, &Worker::run);
  connect(thread_, &QThread::finished, worker, &QObject::deleteLater);
  // done() reaches this object queued; the thread is told to quit at once (direct), so the join
  // in onWorkerDone is short.
  connect(worker, &Worker::done, thread_, &QThread::quit, Qt::DirectConnection);
  thread_->start();
}

bool InversionRunner::start(InversionJob job) {
  if (isRunning()) return false;
  cancel_ = std::make_shared<std::atomic<bool>>(false);
  job.cancel = cancel_;
  auto* worker = new InversionWorker(std::move(job));
  connect(worker, &InversionWorker::modelStarted, this, &InversionRunner::modelStarted, Qt::QueuedConnection);
  connect(worker, &InversionWorker::progress, this, &InversionRunner::progress, Qt::QueuedConnection);
  connect(worker, &InversionWorker::finished, this, &InversionRunner::finished, Qt::QueuedConnection);
  connect(worker, &InversionWorker::failed, this, &InversionRunner::failed, Qt::QueuedConnection);
  connect(worker, &InversionWorker::skipped, this, &InversionRunner::skipped, Qt::QueuedConnection);
  connect(worker, &InversionWorker::done, this, &InversionRunner::onWorkerDone, Qt::QueuedConnection);
  launch(worker, "inversion");
  return true;
}

bool InversionRunner::startOverTraining(OverTrainingJob job) {
  if (isRunning()) return false;
  cancel_ = std::make_shared<std::atomic<bool>>(false);
  job.cancel = cancel_;
  auto* worker = new OverTrainingWorker(std::move(job));
  connect(worker, &OverTrainingWorker::progress, this, &InversionRunner::overTrainingProgress, Qt::QueuedConnection);
  connect(worker, &OverTrainingWorker::finished, this, &InversionRunner::overTrainingFinished, Qt::QueuedConnection);
  connect(worker, &OverTrainingWorker::failed, this, &InversionRunner::overTrainingFailed, Qt::QueuedConnection);
  connect(worker, &OverTrainingWorker::done, this, &InversionRunner::onWorkerDone, Qt::QueuedConnection);
  launch(worker, "inversion-over-training");
  return true;
}

void InversionRunner::cancel() { cancel_->store(true); }

void InversionRunner::onWorkerDone() {
  if (!thread_) return;
  thread_->wait();
  delete thread_;
  thread_ = nullptr;
  Q_EMIT jobFinished();
}

void InversionRunner::stop() {
  cancel();
  if (thread_) {
    thread_->quit();
    thread_->wait();
    delete thread_;
    thread_ = nullptr;
  }
  // Reports the stopped worker queued before it ended must not reach a later job.
  QCoreApplication::removePostedEvents(this, QEvent::MetaCall);
}

}  // namespace mixerlab::gui
