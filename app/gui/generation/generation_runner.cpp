// GenerationRunner (see generation_runner.h).
#include "app/gui/generation/generation_runner.h"

#include <QCoreApplication>
#include <QThread>
#include <algorithm>

#include "app/gui/generation/generator_cache.h"

namespace mixerlab::gui {

GenerationRunner::GenerationRunner(QObject* parent)
    : QObject(parent), cache_(std::make_shared<GeneratorCache>()), cancel_(std::make_shared<std::atomic<bool>>(false)) {
  qRegisterMetaType<mixerlab::GeneratedToken>("mixerlab::GeneratedToken");
  qRegisterMetaType<mixerlab::GenerationResult>("mixerlab::GenerationResult");
}

GenerationRunner::~GenerationRunner() { stop(); }

bool GenerationRunner::start(std::vector<GenerationJob> jobs) {
  if (isRunning()) return false;
  cancel_ = std::make_shared<std::atomic<bool>>(false);
  // The columns share the cores: more threads than cores would make them fight (and spin).
  const int threads = std::max(1, QThread::idealThreadCount() / std::max<int>(1, static_cast<int>(jobs.size())));
  for (GenerationJob& job : jobs) {
    job.cpu_threads = threads;
    job.cancel = cancel_;
    job.cache = cache_;
    auto* thread = new QThread;
    thread->setObjectName(QString("generation-%1").arg(job.column));
    auto* worker = new GenerationWorker(std::move(job));
    worker->moveToThread(thread);
    connect(thread, &QThread::started, worker, &GenerationWorker::run);
    connect(thread, &QThread::finished, worker, &QObject::deleteLater);
    connect(worker, &GenerationWorker::loaded, this, &GenerationRunner::loaded, Qt::QueuedConnection);
    connect(worker, &GenerationWorker::tokenReady, this, &GenerationRunner::tokenReady, Qt::QueuedConnection);
    connect(worker, &GenerationWorker::finished, this, &GenerationRunner::finished, Qt::QueuedConnection);
    connect(worker, &GenerationWorker::failed, this, &GenerationRunner::failed, Qt::QueuedConnection);
    connect(worker, &GenerationWorker::done, thread, &QThread::quit, Qt::DirectConnection);
    connect(worker, &GenerationWorker::done, this, &GenerationRunner::onWorkerDone, Qt::QueuedConnection);
    threads_.push_back(thread);
    ++running_;
  }
  for (QThread* thread : threads_) thread->start();  // all at once, after every connection is made
  return true;
}

void GenerationRunner::cancel() { cancel_->store(true); }

void GenerationRunner::onWorkerDone() {
  if (running_ <= 0 || --running_ > 0) return;
  // Every worker has reported done; its thread quits right after, so these joins are short.
  for (QThread* thread : threads_) {
    thread->wait();
    delete thread;
  }
  threads_.clear();
  Q_EMIT roundFinished();
}

void GenerationRunner::stop() {
  cancel();
  for (QThread* thread : threads_) {
    thread->quit();
    thread->wait();
    delete thread;
  }
  threads_.clear();
  running_ = 0;
  // Reports the stopped workers queued before they ended must not reach a later round.
  QCoreApplication::removePostedEvents(this, QEvent::MetaCall);
}

}  // namespace mixerlab::gui
